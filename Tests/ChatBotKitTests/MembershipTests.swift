import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Foundation
import Testing

@Suite("A bot follows the channels it is added to while running, and stops following those it is removed from")
struct MembershipTests {
    /// "keeper", recording each new message and each edit as "new|edit <cid> <text>".
    static func recordingBot(_ recorder: Recorder<String>) -> Bot {
        let bot = Bot(name: "keeper")
        bot.onMessage { context in recorder.record("new \(context.channel.cid) \(context.message.text)") }
        bot.onMessageUpdated { context in recorder.record("edit \(context.channel.cid) \(context.message.text)") }
        return bot
    }

    @Test("added to a channel while running: its new messages and their edits reach the bot, after a reconnect too")
    func addedWhileRunning() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Self.recordingBot(recorder)
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:later")
            try await server.withBot(bot, channels: ["messaging:general"]) { running in
                try await ann.client.addMembers(["keeper"], to: "messaging:later")
                try await eventually("the bot watches messaging:later") { await server.server.watchers(of: "messaging:later").contains("keeper") }
                #expect(running.service.connection.watchedChannels == ["messaging:general", "messaging:later"])

                // Edits come to watchers only: before, the bot saw the message but not its edit.
                let sent = try await ann.send(text: "v1")
                try await ann.client.updateMessage(sent.id, text: "v2")
                try await recorder.wait { $0.contains("edit messaging:later v2") }

                await server.server.dropConnections(ofUser: "keeper")
                try await eventually("the bot reconnected and watches messaging:later again") {
                    let watchers = await server.server.watchers(of: "messaging:later")
                    return running.service.connection.connectionCount >= 2 && watchers.contains("keeper")
                }
                try await ann.client.updateMessage(sent.id, text: "v3")
                try await recorder.wait { $0.contains("edit messaging:later v3") }
                #expect(recorder.all == ["new messaging:later v1", "edit messaging:later v2", "edit messaging:later v3"])
            }
        }
    }

    @Test("added to a channel while not running: a bot started later follows it beside its configured ones")
    func addedWhileNotRunning() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Self.recordingBot(recorder)
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:meanwhile")
            _ = try await TestUser.join(server, id: "keeper", channel: "messaging:meanwhile")
            try await server.withBot(bot, channels: ["messaging:general"]) { running in
                #expect(Set(running.service.connection.watchedChannels) == ["messaging:general", "messaging:meanwhile"])
                #expect(await server.server.watchers(of: "messaging:meanwhile").contains("keeper"))
                let sent = try await ann.send(text: "v1")
                try await ann.client.updateMessage(sent.id, text: "v2")
                try await recorder.wait { $0.contains("edit messaging:meanwhile v2") }
                #expect(recorder.all == ["new messaging:meanwhile v1", "edit messaging:meanwhile v2"])
            }
        }
    }

    @Test("removed from a channel: its messages no longer reach the bot, and a reconnect does not watch it again")
    func removedWhileRunning() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Self.recordingBot(recorder)
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let annElsewhere = try await TestUser.join(server, id: "ann", channel: "messaging:side")
            try await server.withBot(bot, channels: ["messaging:general", "messaging:side"]) { running in
                let connection = running.service.connection
                try await annElsewhere.client.removeMembers(["keeper"], from: "messaging:side")
                try await eventually("the bot no longer follows messaging:side") { connection.watchedChannels == ["messaging:general"] }

                try await annElsewhere.send(text: "after the removal")
                try await ann.send(text: "still here")
                try await recorder.wait { $0.contains("new messaging:general still here") }

                await server.server.dropConnections(ofUser: "keeper")
                try await eventually("the bot reconnected") {
                    let watchers = await server.server.watchers(of: "messaging:general")
                    return connection.connectionCount >= 2 && watchers.contains("keeper")
                }
                #expect(await !server.server.watchers(of: "messaging:side").contains("keeper"))
                try await annElsewhere.send(text: "after the reconnect")
                try await ann.send(text: "and here")
                try await recorder.wait { $0.contains("new messaging:general and here") }
                #expect(recorder.all == ["new messaging:general still here", "new messaging:general and here"])
                #expect(connection.watchedChannels == ["messaging:general"])
            }
        }
    }
}
