import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Foundation
import Testing

@Suite("Edits: onMessageUpdated, once per edit, in order with the channel's messages")
struct UpdateTests {
    @Test("each edit of someone else's message reaches onMessageUpdated once, in order; the bot's own edits do not; replies about edits get ids of their own")
    func editsInOrder() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "keeper")
            bot.onMessage { context in
                recorder.record("new \(context.message.text)")
                guard context.message.text == "v1" else { return }
                let reply = try await context.reply(text: "hi")
                try await context.client.updateMessage(reply.id, text: "hi!")
            }
            bot.onMessageUpdated { context in
                recorder.record("edit \(context.message.text)")
                try await context.reply(text: "saw \(context.message.text)")
            }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let sent = try await ann.send(text: "v1")
                try await ann.client.updateMessage(sent.id, text: "v2")
                let latest = try await ann.client.updateMessage(sent.id, text: "v3")
                try await recorder.wait { $0.contains("edit v3") }
                // The last edit again, as a reconnect's /sync would bring it: same updated_at.
                let again: RawJSON = ["type": "message.updated", "cid": "messaging:general", "message": latest.json]
                #expect(await server.server.sendRawFrame(JSONWriter.string(again), toUser: "keeper") == 1)
                try await ann.send(text: "last")
                try await recorder.wait { $0.contains("new last") }
                try await Task.sleep(for: .milliseconds(200))
                #expect(recorder.all == ["new v1", "edit v2", "edit v3", "new last"])
                let replies = try await ann.replies(to: sent, from: "keeper", count: 3)
                #expect(replies.map(\.text) == ["hi!", "saw v2", "saw v3"])
                #expect(Set(replies.map(\.id)).count == 3)
            }
        }
    }
}

@Suite("Middleware runs around edits and deletions too")
struct MiddlewareAroundEditsTests {
    /// Keeps guests' messages, edits and deletions from the bot, and records what it let through.
    struct NoGuests: BotMiddleware {
        let recorder: Recorder<String>
        func handle(_ message: Message, context: BotContext, next: @Sendable (Message, BotContext) async throws -> Void) async throws {
            guard message.user?.id != "guest" else { return }
            recorder.record("through \(context.trigger) \(message.text)")
            try await next(message, context)
        }
    }

    @Test("a filter that keeps a user's messages from the bot keeps their edits and deletions away too; context.trigger tells them apart")
    func filterCoversEdits() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "keeper")
            bot.use(NoGuests(recorder: recorder))
            bot.onMessage { context in recorder.record("new \(context.message.text)") }
            bot.onMessageUpdated { context in recorder.record("edit \(context.message.text)") }
            bot.onMessageDeleted { deletion, _ in recorder.record("deleted \(deletion.message.text)") }
            let guest = try await TestUser.join(server, id: "guest", channel: "messaging:general")
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let hidden = try await guest.send(text: "hello")
                try await guest.client.updateMessage(hidden.id, text: "now with a workout")
                try await guest.client.deleteMessage(hidden.id)
                let sent = try await ann.send(text: "a1")
                try await ann.client.updateMessage(sent.id, text: "a2")
                try await ann.client.deleteMessage(sent.id, hard: true)
                try await recorder.wait { $0.contains("deleted a2") }
                try await Task.sleep(for: .milliseconds(200))
                #expect(
                    recorder.all == [
                        "through newMessage a1", "new a1", "through edit a2", "edit a2", "through deletion(isHardDelete: true) a2", "deleted a2",
                    ])
            }
        }
    }
}
