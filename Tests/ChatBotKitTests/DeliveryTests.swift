import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Foundation
import Synchronization
import Testing

@Suite("Delivery: once, in order per channel, through reconnects, errors and shutdown")
struct DeliveryTests {
    /// A bot that records the text of every message it handles.
    static func recordingBot(_ recorder: Recorder<String>, name: String = "keeper") -> Bot {
        let bot = Bot(name: name)
        bot.onMessage { context in recorder.record(context.message.text) }
        return bot
    }

    @Test("the bot's connection is dropped mid-stream: every message is handled once, in order, none lost")
    func connectionDropped() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(Self.recordingBot(recorder), channels: ["messaging:general"]) { running in
                for index in 0..<5 { try await ann.send(text: "m\(index)") }
                try await recorder.wait { $0.count == 5 }
                // The socket goes quiet and then closes: what is sent meanwhile comes back through /sync.
                await server.server.silence("keeper")
                await server.server.dropConnections(ofUser: "keeper")
                for index in 5..<15 { try await ann.send(text: "m\(index)") }
                await server.server.silence("keeper", false)
                try await recorder.wait { $0.count >= 15 }
                for index in 15..<20 { try await ann.send(text: "m\(index)") }
                try await recorder.wait { $0.count >= 20 }
                try await Task.sleep(for: .milliseconds(300))
                #expect(running.service.connection.connectionCount >= 2)
            }
            #expect(recorder.all == (0..<20).map { "m\($0)" })
        }
    }

    @Test("the server restarts while messages are posted: each is handled once after the bot reconnects")
    func serverRestarts() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(Self.recordingBot(recorder), channels: ["messaging:general"]) { _ in
                try await ann.send(text: "before")
                try await recorder.wait { $0 == ["before"] }
                await server.server.silence("keeper")
                try await ann.send(text: "while silent")
                try await server.restart(downtime: .milliseconds(300))
                try await ann.send(text: "after restart")
                try await recorder.wait { $0.count >= 3 }
                try await Task.sleep(for: .milliseconds(300))
            }
            #expect(recorder.all == ["before", "while silent", "after restart"])
        }
    }

    @Test("a message delivered again as message.new and as notification.message_new is handled once")
    func redelivery() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(Self.recordingBot(recorder), channels: ["messaging:general"]) { _ in
                let sent = try await ann.send(text: "once")
                try await recorder.wait { $0 == ["once"] }
                let stored = try await ann.client.getMessage(sent.id)
                for type in ["message.new", "notification.message_new", "message.new"] {
                    let event: RawJSON = ["type": .string(type), "cid": "messaging:general", "message": stored.json]
                    let delivered = await server.server.sendRawFrame(JSONWriter.string(event), toUser: "keeper")
                    #expect(delivered == 1)
                }
                try await ann.send(text: "next")
                try await recorder.wait { $0.contains("next") }
            }
            #expect(recorder.all == ["once", "next"])
        }
    }

    @Test("a handler that throws is reported with the message id, and the bot keeps handling messages")
    func throwingHandler() async throws {
        struct Broken: Error {}
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "fragile")
            bot.onMessage { context in
                if context.message.text == "boom" { throw Broken() }
                recorder.record("handled:\(context.message.text)")
            }
            bot.onMessage { context in recorder.record("second:\(context.message.text)") }
            bot.onError { error, context in
                recorder.record("error:\(error.code):\(error.messageId == context?.message.id ? "same-id" : "other-id"):\(error.underlying is Broken)")
            }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                try await ann.send(text: "boom")
                try await ann.send(text: "fine")
                try await recorder.wait { $0.contains("second:fine") }
            }
            #expect(recorder.all == ["error:bot.handler_failed:same-id:true", "second:boom", "handled:fine", "second:fine"])
        }
    }

    @Test("shutdown stops taking messages and waits for the running handler to finish")
    func shutdownWaitsForHandler() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "slow")
            bot.onMessage { context in
                recorder.record("started:\(context.message.text)")
                try await Task.sleep(for: .milliseconds(1500))
                try await context.reply(text: "done")
                recorder.record("finished:\(context.message.text)")
            }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { running in
                let sent = try await ann.send(text: "work")
                try await recorder.wait { $0.contains("started:work") }
                #expect(running.service.runningHandlers == 1)
                try await running.stop()
                #expect(recorder.all == ["started:work", "finished:work"])
                #expect(try await ann.replies(to: sent, from: "slow", timeout: .zero).map(\.text) == ["done"])
                // Stopped: new messages are not taken.
                try await ann.send(text: "after shutdown")
                try await Task.sleep(for: .milliseconds(500))
            }
            #expect(!recorder.all.contains("started:after shutdown"))
        }
    }

    @Test("a handler still running at the drain deadline is cancelled and shutdown completes")
    func drainDeadline() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "stuck")
            bot.onMessage { _ in
                recorder.record("started")
                do {
                    try await Task.sleep(for: .seconds(60))
                } catch {
                    recorder.record("cancelled")
                    throw error
                }
            }
            var configuration = TestChatServer.testBotConfiguration
            configuration.drainDeadline = .milliseconds(300)
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"], configuration: configuration) { running in
                try await ann.send(text: "forever")
                try await recorder.wait { $0.contains("started") }
                let clock = ContinuousClock()
                let elapsed = try await clock.measure { try await running.stop() }
                #expect(elapsed < .seconds(5), "stopped after \(elapsed)")
            }
            #expect(recorder.all == ["started", "cancelled"])
        }
    }

    @Test("a bot with no handler running stops at once: the drain deadline is not waited out")
    func idleShutdown() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            var configuration = TestChatServer.testBotConfiguration
            configuration.drainDeadline = .seconds(30)
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let clock = ContinuousClock()
            // Never sent anything: no worker was ever started.
            let idle = Bot(name: "idle")
            idle.onMessage { _ in recorder.record("idle handled") }
            try await server.withBot(idle, channels: ["messaging:general"], configuration: configuration) { running in
                let elapsed = try await clock.measure { try await running.stop() }
                #expect(elapsed < .seconds(5), "an idle bot stopped after \(elapsed)")
            }
            // Handled a message, then idle again.
            let done = Bot(name: "done")
            done.onMessage { context in recorder.record("handled:\(context.message.text)") }
            try await server.withBot(done, channels: ["messaging:general"], configuration: configuration) { running in
                try await ann.send(text: "one")
                try await recorder.wait { $0.contains("handled:one") }
                let elapsed = try await clock.measure { try await running.stop() }
                #expect(elapsed < .seconds(5), "a bot whose handlers had finished stopped after \(elapsed)")
            }
            #expect(recorder.all == ["handled:one"])
        }
    }

    @Test("one channel's messages are handled in order while other channels go on concurrently")
    func orderingAndConcurrency() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "sorter")
            bot.onMessage { context in
                if context.message.text == "a0" {
                    // Blocks channel A until channel B has been handled: only possible if they run concurrently.
                    try await recorder.wait(timeout: .seconds(5)) { $0.contains("beta:b0") }
                }
                recorder.record("\(context.channel.cid.id):\(context.message.text)")
            }
            let annInAlpha = try await TestUser.join(server, id: "ann", channel: "messaging:alpha")
            let annInBeta = try await TestUser.join(server, id: "ann", channel: "messaging:beta")
            try await server.withBot(bot, channels: ["messaging:alpha", "messaging:beta"]) { _ in
                for index in 0..<5 { try await annInAlpha.send(text: "a\(index)") }
                try await annInBeta.send(text: "b0")
                try await recorder.wait { $0.count == 6 }
            }
            #expect(recorder.all.filter { $0.hasPrefix("alpha:") } == (0..<5).map { "alpha:a\($0)" })
            #expect(recorder.all.first == "beta:b0")
        }
    }

    @Test("no more channels run at once than maximumConcurrentChannels")
    func concurrencyLimit() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let gauge = ConcurrencyGauge()
            let bot = Bot(name: "limited")
            bot.onMessage { context in
                try await gauge.measure { try await Task.sleep(for: .milliseconds(150)) }
                recorder.record(context.message.text)
            }
            var configuration = TestChatServer.testBotConfiguration
            configuration.maximumConcurrentChannels = 2
            let channels: [ChannelId] = (0..<4).map { ChannelId(type: .messaging, id: "room\($0)") }
            var users: [TestUser] = []
            for cid in channels { users.append(try await TestUser.join(server, id: "ann", channel: cid)) }
            try await server.withBot(bot, channels: channels, configuration: configuration) { _ in
                for user in users {
                    for index in 0..<2 { try await user.send(text: "\(user.channel.id)-\(index)") }
                }
                try await recorder.wait { $0.count == 8 }
            }
            #expect(gauge.peak == 2)
        }
    }
}
