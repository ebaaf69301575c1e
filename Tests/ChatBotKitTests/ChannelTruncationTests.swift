import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Foundation
import Testing

@Suite("Channel truncation and deletion reach onChannelTruncated, once, in order with the channel's messages")
struct ChannelTruncationTests {
    @Test("a truncation and a deletion each reach the bot once, after the handlers of the messages sent before them")
    func inOrder() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "keeper")
            bot.onMessage { context in
                // Slow on purpose: the truncation must still wait for this handler.
                try await Task.sleep(for: .milliseconds(150))
                recorder.record("new \(context.message.text)")
            }
            bot.onChannelTruncated { truncation, channel in
                #expect(channel.cid == truncation.cid)
                recorder.record("\(truncation.isChannelDeleted ? "deleted" : "truncated") by \(truncation.user?.id ?? "the server")")
            }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let admin = server.client(as: "admin")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let before = try await ann.send(text: "before")
                let truncated = try await admin.truncateChannel("messaging:general")
                try await recorder.wait { $0.contains { $0.hasPrefix("truncated") } }
                #expect(recorder.all == ["new before", "truncated by admin"])
                let truncatedAt = try #require(truncated.truncatedAt)
                #expect(truncatedAt >= (try #require(before.createdAt)))

                // The truncation again, as a reconnect's /sync would bring it: not handled twice.
                let again: RawJSON = ["type": "channel.truncated", "cid": "messaging:general", "channel": truncated.json]
                #expect(await server.server.sendRawFrame(JSONWriter.string(again), toUser: "keeper") == 1)
                try await ann.send(text: "after")
                try await recorder.wait { $0.contains("new after") }
                // A delete names no acting user (the call has none), so the event has no user.
                try await admin.deleteChannel("messaging:general")
                try await recorder.wait { $0.contains { $0.hasPrefix("deleted") } }
                #expect(recorder.all == ["new before", "truncated by admin", "new after", "deleted by the server"])
            }
        }
    }

    @Test("a truncation handler that throws is reported to onError without a context; the others still run")
    func failingHandler() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "keeper")
            bot.onChannelTruncated { _, _ in throw BotError(code: .handlerFailed, message: "cannot forget") }
            bot.onChannelTruncated { truncation, _ in recorder.record("second handler saw \(truncation.cid)") }
            bot.onError { error, context in recorder.record("error \(context == nil ? "without" : "with") context: \(error.message)") }
            _ = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                try await server.client(as: "admin").truncateChannel("messaging:general", hardDelete: true)
                try await recorder.wait { $0.count == 2 }
                #expect(recorder.all.contains("second handler saw messaging:general"))
                #expect(recorder.all.contains { $0.hasPrefix("error without context: a channel truncation handler of bot keeper failed") && $0.contains("cannot forget") })
            }
        }
    }

    @Test("a channel deleted while the bot is offline reaches onChannelTruncated when it reconnects, and the bot does not create it again")
    func deletedWhileOffline() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "keeper")
            bot.onMessage { context in recorder.record("new \(context.message.text) in \(context.channel.cid)") }
            bot.onChannelTruncated { truncation, _ in
                recorder.record("\(truncation.isChannelDeleted ? "deleted" : "truncated") \(truncation.cid)")
            }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            _ = try await TestUser.join(server, id: "ann", channel: "messaging:random")
            let admin = server.client(as: "admin")
            try await server.withBot(bot, channels: ["messaging:general", "messaging:random"]) { running in
                try await ann.send(text: "before")
                try await recorder.wait { $0.count == 1 }
                await server.server.silence("keeper")
                await server.server.dropConnections(ofUser: "keeper")
                let deleted = try await admin.deleteChannel("messaging:general")
                try await ann.client.channel("messaging:random").sendMessage(text: "meanwhile")
                await server.server.silence("keeper", false)
                try await recorder.wait { $0.count >= 3 }
                try await Task.sleep(for: .milliseconds(300))
                // In order within each channel, each once; two channels' handlers run side by side,
                // so their order across channels is not fixed.
                #expect(recorder.all.count == 3)
                #expect(recorder.all.filter { $0.hasSuffix("messaging:general") } == ["new before in messaging:general", "deleted messaging:general"])
                #expect(recorder.count("new meanwhile in messaging:random") == 1)
                #expect(running.service.connection.connectionCount >= 2)
                // Still deleted: reconnecting did not get-or-create it again.
                #expect(try await admin.queryChannels(filter: ["cid": "messaging:general"]).isEmpty)
                #expect(deleted.deletedAt != nil)
            }
        }
    }
}
