import ChatBotKit
import ChatBotKitAI
import ChatBotKitPostgres
import ChatBotKitTesting
import ChatModels
import Foundation
import Testing

/// A streamed reply whose node stops in the middle: the node that takes the channel's lease
/// handles the message again and rewrites the same reply. One reply, complete, never a second.
@Suite("Scale-out: a streamed reply cut off by its node is rewritten by the next holder of the channel")
struct ScaledStreamedReplyTests {
    static let cid: ChannelId = "messaging:ai-lease"

    /// The assistant bot of one node; its answers are `tokens` long.
    static func assistantBot(_ model: OpenAICompatibleModel, tokens: Int) -> Bot {
        let assistant = Assistant(model: model, settings: Assistant.Settings(maximumTokens: tokens))
        let bot = Bot(name: "assistant", user: User(id: "assistant-bot"))
        bot.onMessage { context in try await assistant.answer(context) }
        return bot
    }

    static func configuration(_ store: PostgresChannelLeaseStore, node: String) -> BotService.Configuration {
        var configuration = ScaleOutTests.configuration(store, node: node)
        // Handlers still running at shutdown are cut off at once, as a crashed node's are.
        configuration.drainDeadline = .milliseconds(10)
        return configuration
    }

    static func replies(_ ann: TestUser) async throws -> [Message] {
        try await ann.client.queryChannel(cid, messageLimit: 50).messages.filter { $0.user?.id == "assistant-bot" }
    }

    @Test("node-a streams, stops mid-answer; node-b takes the channel and finishes the same reply")
    func handOverMidStream() async throws {
        let modelServer = try await TestModelServer.start()
        defer { modelServer.stop() }
        let model = OpenAICompatibleModel(url: modelServer.url, model: modelServer.model)
        try await withStore { store in
            try await TestChatServer.withServer { server in
                let ann = try await TestUser.join(server, id: "ann", channel: Self.cid)
                let nodeA = try await server.startBot(
                    Self.assistantBot(model, tokens: 3000), channels: [Self.cid], configuration: Self.configuration(store, node: "node-a"))
                try await eventually("node-a holds the channel") { nodeA.service.leasedChannels == [Self.cid] }
                _ = try await ann.send(text: "A long answer, please.")
                try await eventually("the reply is streaming", timeout: .seconds(60)) {
                    try await Self.replies(ann).contains { !$0.text.isEmpty && $0.extraData["generating"]?.boolValue == true }
                }
                try await nodeA.stop()
                let halfWritten = try await Self.replies(ann)
                #expect(halfWritten.count == 1)
                #expect(halfWritten.first?.extraData["generating"]?.boolValue == true, "node-a left its reply unfinished")

                let nodeB = try await server.startBot(
                    Self.assistantBot(model, tokens: 30), channels: [Self.cid], configuration: Self.configuration(store, node: "node-b"))
                try await eventually("node-b finished the reply", timeout: .seconds(60)) {
                    try await Self.replies(ann).first?.extraData["generating"]?.boolValue == false
                }
                #expect(nodeB.service.leasedChannels == [Self.cid])
                try await Task.sleep(for: .milliseconds(500))
                try await nodeB.stop()
                let replies = try await Self.replies(ann)
                #expect(replies.count == 1, "one reply, not a second")
                #expect(replies.first?.id == halfWritten.first?.id)
                #expect(replies.first?.text.isEmpty == false)
                #expect(replies.first?.extraData["ai_stopped"] == nil)
            }
        }
    }
}
