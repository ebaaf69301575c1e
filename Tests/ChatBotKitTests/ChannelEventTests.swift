import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Foundation
import Testing

@Suite("Channel events: onEvent, in order with the channel's messages, once")
struct ChannelEventTests {
    /// A bot that records new messages, members added and `workout.started` events.
    static func recordingBot(_ recorder: Recorder<String>) -> Bot {
        let bot = Bot(name: "greeter", user: User(id: "greeter"))
        bot.onMessage { context in recorder.record("new \(context.message.text)") }
        bot.onEvent(.memberAdded) { context in
            recorder.record("added \(context.event.member?.userId ?? "?") \(context.event.member?.user?.name ?? "?")")
            try await context.post(text: "Welcome, \(context.event.member?.user?.name ?? "?")!")
        }
        bot.onEvent("workout.started") { context in
            recorder.record("custom \(context.event.user?.id ?? "?") \(context.event.extraData["sport"]?.stringValue ?? "?")")
        }
        return bot
    }

    @Test("members added and custom events reach onEvent in order with the messages, once each; the bot's own do not, nor types without handlers")
    func eventsInOrder() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let admin = server.client(as: "admin")
            try await admin.upsertUsers([User(id: "bob", name: "Bob")])
            try await server.withBot(Self.recordingBot(recorder), channels: ["messaging:general"]) { _ in
                try await ann.send(text: "hi")
                try await admin.addMembers(["bob"], to: "messaging:general")
                try await server.client(as: "bob").sendEvent("workout.started", to: "messaging:general", extraData: ["sport": "run"])
                try await server.client(as: "greeter").sendEvent("workout.started", to: "messaging:general", extraData: ["sport": "own"])
                try await ann.client.sendEvent("workout.finished", to: "messaging:general")
                try await ann.send(text: "bye")
                try await recorder.wait { $0.contains("new bye") }

                // The same member.added again, as a reconnect's /sync would bring it.
                try await redeliver(in: "messaging:general", on: server, to: "greeter") { $0.type == .memberAdded && $0.member?.userId == "bob" }
                try await ann.send(text: "last")
                try await recorder.wait { $0.contains("new last") }
                try await Task.sleep(for: .milliseconds(200))
                #expect(recorder.all == ["new hi", "added bob Bob", "custom bob run", "new bye", "new last"])
                let welcome = try await admin.queryChannel("messaging:general").messages.filter { $0.user?.id == "greeter" }
                #expect(welcome.map(\.text) == ["Welcome, Bob!"])
            }
        }
    }

    @Test("a post of an event handler has an id derived from the event, so handling it again posts nothing twice; a failing handler reaches onError")
    func idsAndErrors() async throws {
        try await TestChatServer.withServer { server in
            let errors = Recorder<String>()
            let recorder = Recorder<String>()
            let bot = Self.recordingBot(recorder)
            bot.onEvent(.memberAdded) { _ in throw CocoaError(.fileNoSuchFile) }
            bot.onError { error, context in errors.record("\(error.code.rawValue) \(context == nil ? "no context" : "context")") }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let admin = server.client(as: "admin")
            try await admin.upsertUsers([User(id: "bob", name: "Bob")])
            let scratch = try ScratchFolder("events")
            let data = scratch.path("events")
            var configuration = TestChatServer.testBotConfiguration
            configuration.catchUp = BotService.CatchUp(checkpointFile: data.appendingPathComponent("greeter.json"), saveInterval: .milliseconds(50))
            try await server.withBot(bot, channels: ["messaging:general"], configuration: configuration) { _ in
                try await ann.send(text: "hi")
                try await recorder.wait { $0.contains("new hi") }
            }
            // While it is stopped: bob joins; started again, it catches up and greets him once.
            try await admin.addMembers(["bob"], to: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"], configuration: configuration) { _ in
                try await recorder.wait { $0.contains("added bob Bob") }
                try await errors.wait { $0 == ["bot.handler_failed no context"] }
            }
            // Started with no memory of it (a crash lost the checkpoint), the bot is handed the same
            // event again: it handles it, and its welcome keeps the id it had, so it is posted once.
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                try await redeliver(in: "messaging:general", on: server, to: "greeter") { $0.type == .memberAdded && $0.member?.userId == "bob" }
                try await recorder.wait { $0.filter { $0.hasPrefix("added") }.count == 2 }
                try await errors.wait { $0.count == 2 }
            }
            #expect(recorder.all.filter { $0.hasPrefix("added") } == ["added bob Bob", "added bob Bob"])
            let welcomes = try await admin.queryChannel("messaging:general").messages.filter { $0.user?.id == "greeter" }
            #expect(welcomes.map(\.text) == ["Welcome, Bob!"], "the second post had the first one's id")
        }
    }

    @Test("onAddedToChannel runs once when the bot is added to a channel, which it then follows; not for the channels it joins itself")
    func addedToChannel() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "greeter", user: User(id: "greeter"))
            bot.onMessage { context in recorder.record("new \(context.message.cid?.rawValue ?? "?") \(context.message.text)") }
            bot.onAddedToChannel { context in
                recorder.record("added to \(context.channel.cid) as \(context.event.member?.userId ?? "?")")
                try await context.post(text: "Hello, club!")
            }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let admin = server.client(as: "admin")
            try await admin.join("messaging:club", as: "ann")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                try await admin.addMembers(["greeter"], to: "messaging:club")
                try await recorder.wait { $0.contains("added to messaging:club as greeter") }
                try await ann.client.channel("messaging:club").sendMessage(text: "hi bot")
                try await ann.send(text: "hi general")
                try await recorder.wait { $0.contains("new messaging:general hi general") && $0.contains("new messaging:club hi bot") }
                // The notification and the channel's member.added of one addition, again.
                try await redeliver(in: "messaging:club", on: server, to: "greeter") { $0.isAddition(of: "greeter") }
                try await ann.send(text: "last")
                try await recorder.wait { $0.contains("new messaging:general last") }
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(recorder.all.filter { $0.hasPrefix("added") } == ["added to messaging:club as greeter"], "once, and not for general")
            let hello = try await admin.queryChannel("messaging:club").messages.filter { $0.user?.id == "greeter" }
            #expect(hello.map(\.text) == ["Hello, club!"])
            #expect(try await admin.queryChannel("messaging:general").messages.allSatisfy { $0.user?.id != "greeter" })
        }
    }
}
