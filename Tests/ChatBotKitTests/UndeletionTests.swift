import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Foundation
import Testing

@Suite("Undeletions: onMessageUndeleted, in order with the channel's messages, once")
struct UndeletionTests {
    /// Writes down the trigger of everything that passes.
    struct TriggerLog: BotMiddleware {
        let recorder: Recorder<String>
        func handle(_ message: Message, context: BotContext, next: @Sendable (Message, BotContext) async throws -> Void) async throws {
            recorder.record("middleware \(context.trigger)")
            try await next(message, context)
        }
    }

    @Test("a restored message reaches onMessageUndeleted once, after its deletion; deleted and restored again, both are handled again")
    func undeletionsInOrder() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "keeper")
            bot.use(TriggerLog(recorder: recorder))
            bot.onMessage { context in recorder.record("new \(context.message.text)") }
            bot.onMessageDeleted { deletion, _ in recorder.record("deleted \(deletion.message.text)") }
            bot.onMessageUndeleted { context in
                #expect(context.trigger == .undeletion)
                recorder.record("undeleted \(context.message.text) \(context.message.type.rawValue)")
                try await context.reply(text: "welcome back")
            }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let moderator = server.client(as: "mod")
            try await moderator.upsertUsers([User(id: "mod")])
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let sent = try await ann.send(text: "keep me")
                try await ann.client.deleteMessage(sent.id)
                let restored = try await moderator.undeleteMessage(sent.id)
                try await recorder.wait { $0.contains("undeleted keep me regular") }
                // The same undeletion again, as a reconnect's /sync would bring it.
                let again: RawJSON = ["type": "message.undeleted", "cid": "messaging:general", "message": restored.json]
                #expect(await server.server.sendRawFrame(JSONWriter.string(again), toUser: "keeper") == 1)
                try await ann.client.deleteMessage(sent.id)
                try await moderator.undeleteMessage(sent.id)
                let replies = try await ann.replies(to: sent, from: "keeper", count: 2)
                #expect(replies.map(\.text) == ["welcome back", "welcome back"])
                #expect(Set(replies.map(\.id)).count == 2, "each undeletion's reply has an id of its own")
                try await ann.send(text: "last")
                try await recorder.wait { $0.contains("new last") }
                try await Task.sleep(for: .milliseconds(200))
                let handled = recorder.all.filter { !$0.hasPrefix("middleware") }
                #expect(
                    handled == [
                        "new keep me", "deleted keep me", "undeleted keep me regular", "deleted keep me", "undeleted keep me regular", "new last",
                    ], "the attachment and message routes do not run again for a restored message")
                #expect(recorder.all.filter { $0 == "middleware undeletion" }.count == 2)
            }
        }
    }
}
