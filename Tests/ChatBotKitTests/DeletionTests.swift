import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Foundation
import Testing

@Suite("Deletions: onMessageDeleted, in order with the channel's messages, once")
struct DeletionTests {
    @Test("a deleted message reaches onMessageDeleted once, after its own handlers finished, soft or hard; the bot's own do not")
    func deletionsInOrder() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "keeper")
            bot.onMessage { context in
                // Still running when the deletion of this message arrives.
                try await Task.sleep(for: .milliseconds(300))
                if context.message.text == "reply please" {
                    let reply = try await context.reply(text: "noted")
                    try await context.delete(message: reply)
                }
                recorder.record("new \(context.message.text)")
            }
            bot.onMessageDeleted { deletion, context in
                #expect(context.message.id == deletion.message.id)
                #expect(deletion.message.type == .deleted)
                recorder.record("deleted \(deletion.message.id) \(deletion.isHardDelete ? "hard" : "soft")")
            }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let first = try await ann.send(text: "first")
                let softDeleted = try await ann.client.deleteMessage(first.id)
                let second = try await ann.send(text: "second")
                try await ann.client.deleteMessage(second.id, hard: true)
                try await ann.send(text: "reply please")
                try await recorder.wait { $0.contains("new reply please") }
                // The same deletion again, as a reconnect's /sync would bring it.
                let again: RawJSON = ["type": "message.deleted", "cid": "messaging:general", "message": softDeleted.json, "hard_delete": false]
                #expect(await server.server.sendRawFrame(JSONWriter.string(again), toUser: "keeper") == 1)
                try await ann.send(text: "last")
                try await recorder.wait { $0.contains("new last") }
                try await Task.sleep(for: .milliseconds(200))
                #expect(
                    recorder.all == [
                        "new first", "deleted \(first.id) soft", "new second", "deleted \(second.id) hard", "new reply please", "new last",
                    ])
            }
        }
    }

    @Test("a reply about a deletion gets an id of its own (not that of the message's first reply); a failing deletion handler reaches onError")
    func repliesAndErrors() async throws {
        try await TestChatServer.withServer { server in
            let errors = Recorder<String>()
            let bot = Bot(name: "keeper")
            bot.onMessage { context in try await context.reply(text: "seen") }
            bot.onMessageDeleted { _, context in try await context.reply(text: "gone") }
            bot.onMessageDeleted { _, _ in throw CocoaError(.fileNoSuchFile) }
            bot.onError { error, context in errors.record("\(error.code.rawValue) \(context?.message.id ?? "-")") }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let sent = try await ann.send(text: "short-lived")
                _ = try await ann.replies(to: sent, from: "keeper")
                try await ann.client.deleteMessage(sent.id)
                let replies = try await ann.replies(to: sent, from: "keeper", count: 2)
                #expect(replies.map(\.text) == ["seen", "gone"])
                #expect(Set(replies.map(\.id)).count == 2)
                try await errors.wait { $0 == ["bot.handler_failed \(sent.id)"] }
            }
        }
    }
}
