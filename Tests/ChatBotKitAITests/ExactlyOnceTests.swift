import ChatBotKit
import ChatBotKitAI
import ChatBotKitTesting
import ChatDevServer
import ChatModels
import Foundation
import Testing

/// A bot stopped in the middle of a streamed reply handles the message again when it starts
/// again, and rewrites the same reply: one reply, complete.
@Suite(.serialized) struct ExactlyOnceTests {
    let cid: ChannelId = "messaging:ai-once"

    @Test func aBotCutOffMidStreamRewritesItsOneReplyWhenItStartsAgain() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ai-once-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = TestChatServer.testBotConfiguration
        configuration.catchUp = BotService.CatchUp(checkpointFile: folder.appendingPathComponent("checkpoint.json"), saveInterval: .milliseconds(50))
        // Handlers still running at shutdown are cut off at once, as a killed bot's are.
        configuration.drainDeadline = .milliseconds(10)
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: cid)
            let model = try await tinyModel()
            func bot(tokens: Int) -> Bot {
                let assistant = Assistant(model: model, settings: Assistant.Settings(maximumTokens: tokens))
                let bot = Bot(name: "assistant", user: User(id: "assistant-bot"))
                bot.onMessage { context in try await assistant.answer(context) }
                return bot
            }
            let first = try await server.startBot(bot(tokens: 3000), channels: [cid], configuration: configuration)
            let question = try await ann.send(text: "A long answer, please.")
            try await eventually("the reply is streaming", timeout: .seconds(60)) {
                let replies = try await ann.client.queryChannel(cid, messageLimit: 50).messages.filter { $0.user?.id == "assistant-bot" }
                return replies.contains { !$0.text.isEmpty && $0.extraData["generating"]?.boolValue == true }
            }
            try await first.stop()
            let halfWritten = try await ann.client.queryChannel(cid, messageLimit: 50).messages.filter { $0.user?.id == "assistant-bot" }
            #expect(halfWritten.count == 1)
            #expect(halfWritten.first?.extraData["generating"]?.boolValue == true, "the cut-off reply was left for the next start")

            let second = try await server.startBot(bot(tokens: 30), channels: [cid], configuration: configuration)
            try await eventually("the reply is complete", timeout: .seconds(60)) {
                let replies = try await ann.client.queryChannel(cid, messageLimit: 50).messages.filter { $0.user?.id == "assistant-bot" }
                return replies.first?.extraData["generating"]?.boolValue == false
            }
            try await second.stop()
            let replies = try await ann.client.queryChannel(cid, messageLimit: 50).messages.filter { $0.user?.id == "assistant-bot" }
            #expect(replies.count == 1, "one reply, not a second")
            #expect(replies.first?.id == halfWritten.first?.id)
            #expect(replies.first?.text.isEmpty == false)
            #expect(replies.first?.extraData["ai_stopped"] == nil)
            _ = question
        }
    }
}
