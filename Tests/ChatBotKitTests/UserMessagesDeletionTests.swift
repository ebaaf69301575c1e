import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Foundation
import Testing

@Suite("A user's messages deleted at once reach onUserMessagesDeleted, once, in order with the channel's messages")
struct UserMessagesDeletionTests {
    @Test("a ban that deletes messages and a deactivation that does each reach the bot once, after the handlers of the messages sent before")
    func inOrder() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "keeper")
            bot.onMessage { context in
                // Slow on purpose: the deletion must still wait for this handler.
                try await Task.sleep(for: .milliseconds(150))
                recorder.record("new \(context.message.text)")
            }
            bot.onUserMessagesDeleted { deletion, channel in
                #expect(channel.cid == deletion.cid)
                recorder.record("\(deletion.user.id)'s messages deleted \(deletion.isHardDelete ? "for good" : "softly") in \(deletion.cid)")
            }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let moderator = server.client(as: "mod")
            try await moderator.upsertUsers([User(id: "mod")])
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let spam = try await ann.send(text: "spam")
                try await moderator.banUser("ann", in: "messaging:general", deletingMessages: .soft, as: "mod")
                try await recorder.wait { $0.count == 2 }
                #expect(recorder.all == ["new spam", "ann's messages deleted softly in messaging:general"])
                #expect(try await moderator.getMessage(spam.id).type == .deleted)

                // The same deletion again, as a reconnect's /sync would bring it: not handled twice.
                try await redeliver(in: "messaging:general", on: server, to: "keeper") { $0.type == .userMessagesDeleted }
                try await moderator.unbanUser("ann", in: "messaging:general")
                try await ann.send(text: "sorry")
                try await moderator.deactivateUser("ann", markingMessagesDeleted: true, by: "mod")
                try await recorder.wait { $0.count == 4 }
                // The bot's own messages deleted at once concern nothing it keeps: not handed to it.
                try await moderator.banUser("keeper", in: "messaging:general", deletingMessages: .hard, as: "mod")
                let bob = try await TestUser.join(server, id: "bob", channel: "messaging:general")
                try await bob.send(text: "last")
                try await recorder.wait { $0.contains("new last") }
                try await Task.sleep(for: .milliseconds(200))
                #expect(
                    recorder.all == [
                        "new spam", "ann's messages deleted softly in messaging:general", "new sorry",
                        "ann's messages deleted softly in messaging:general", "new last",
                    ])
            }
        }
    }

    @Test("a deletion made while the bot is stopped is handled when it starts again, once, also after a second restart")
    func caughtUp() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "keeper")
            bot.onMessage { context in recorder.record("new \(context.message.text)") }
            bot.onUserMessagesDeleted { deletion, _ in recorder.record("\(deletion.user.id)'s messages deleted") }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let scratch = try ScratchFolder("user-deletions")
            let data = scratch.path("user-deletions")
            var configuration = TestChatServer.testBotConfiguration
            configuration.catchUp = BotService.CatchUp(checkpointFile: data.appendingPathComponent("keeper.json"), saveInterval: .milliseconds(50))
            try await server.withBot(bot, channels: ["messaging:general"], configuration: configuration) { _ in
                try await ann.send(text: "spam")
                try await recorder.wait { $0.contains("new spam") }
            }
            try await server.client(as: "admin").deleteUser("ann", messages: .soft)
            for _ in 0..<2 {
                try await server.withBot(bot, channels: ["messaging:general"], configuration: configuration) { _ in
                    try await recorder.wait { $0.contains("ann's messages deleted") }
                    try await Task.sleep(for: .milliseconds(300))
                }
            }
            #expect(recorder.all == ["new spam", "ann's messages deleted"])
        }
    }

    @Test("a user.deleted with its messages counts for each of the bot's channels, once each, also beside the per-channel events")
    func userDeletedCountsEverywhere() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "keeper")
            bot.onMessage { context in recorder.record("new \(context.message.text)") }
            bot.onUserMessagesDeleted { deletion, _ in recorder.record("\(deletion.user.id)'s messages deleted in \(deletion.cid)") }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            _ = try await TestUser.join(server, id: "ann", channel: "messaging:club")
            let bob = try await TestUser.join(server, id: "bob", channel: "messaging:club")
            try await server.withBot(bot, channels: ["messaging:general", "messaging:club"]) { _ in
                try await ann.send(text: "spam")
                try await recorder.wait { $0.contains("new spam") }
                // The dev server sends user.messages.deleted in general (where ann posted) and user.deleted.
                try await server.client(as: "admin").deleteUser("ann", messages: .soft)
                try await recorder.wait { $0.count == 3 }
                // A service that sends user.deleted alone: bob's, handed to the bot as it would come.
                let alone: RawJSON = [
                    "type": "user.deleted", "user": ["id": "bob"], "mark_messages_deleted": true, "hard_delete": false,
                    "created_at": .string(RFC3339.string(from: Date())),
                ]
                #expect(await server.server.sendRawFrame(JSONWriter.string(alone), toUser: "keeper") == 1)
                let kept: RawJSON = ["type": "user.deleted", "user": ["id": "cem"], "mark_messages_deleted": false, "created_at": "2026-11-26T10:00:00Z"]
                #expect(await server.server.sendRawFrame(JSONWriter.string(kept), toUser: "keeper") == 1)
                try await bob.send(text: "last")
                try await recorder.wait { $0.contains("new last") }
                try await Task.sleep(for: .milliseconds(300))
                // Two channels' handlers run side by side: their order across channels is not fixed.
                #expect(
                    recorder.all.sorted() == [
                        "ann's messages deleted in messaging:club", "ann's messages deleted in messaging:general",
                        "bob's messages deleted in messaging:club", "bob's messages deleted in messaging:general", "new last", "new spam",
                    ], "once per channel: general's user.messages.deleted and the user.deleted are one delivery; nothing for cem")
            }
        }
    }

    @Test("a handler that throws is reported to onError without a context; the others still run")
    func failingHandler() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "keeper")
            bot.onUserMessagesDeleted { _, _ in throw BotError(code: .handlerFailed, message: "cannot forget") }
            bot.onUserMessagesDeleted { deletion, _ in recorder.record("second handler saw \(deletion.user.id)") }
            bot.onError { error, context in recorder.record("error \(context == nil ? "without" : "with") context: \(error.message)") }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                try await ann.send(text: "spam")
                try await server.client(as: "admin").deleteUser("ann", messages: .hard)
                try await recorder.wait { $0.count == 2 }
                #expect(recorder.all.contains("second handler saw ann"))
                #expect(
                    recorder.all.contains {
                        $0.hasPrefix("error without context: a user's messages deletion handler of bot keeper failed") && $0.contains("cannot forget")
                    })
            }
        }
    }
}
