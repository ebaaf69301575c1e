import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Prometheus
import Testing

/// Waits two seconds for each answer, and says so when none comes. (With one second, an answer
/// sent half a second later reached the bot after the time ran out when the whole suite ran at
/// once on two cores.)
private struct Hurried: Conversation, Equatable {
    var asked: Int
    static let timeout: Duration = .seconds(2)
    static let expiredText: String? = "I stopped waiting."
}

/// Waits two seconds too, and says nothing when no answer comes.
private struct Mute: Conversation, Equatable {
    static let timeout: Duration = .seconds(2)
}

@Suite("Conversation timeouts: the bot says it stopped waiting when the time runs out while it runs")
struct ConversationTimeoutTests {
    private static func bot(recorder: Recorder<String>) -> Bot {
        let bot = Bot(name: "clerk", user: User(id: "clerk-bot"))
        bot.command("hurried") { _, context in try await context.startConversation(Hurried(asked: 0)) }
        bot.command("mute") { _, context in try await context.startConversation(Mute()) }
        bot.onMessage { context in recorder.record("message \(context.message.text)") }
        bot.onConversation(Hurried.self) { hurried, context in
            recorder.record("turn \(hurried.asked): \(context.message.text)")
            return .next(Hurried(asked: hurried.asked + 1))
        }
        bot.onConversation(Mute.self) { _, _ in .end }
        return bot
    }

    @Test("told in its thread, mentioning the person, a timeout after the last answer, once; a type without expiredText says nothing")
    func toldAtTheTimeout() async throws {
        try await TestChatServer.withServer { server in
            let registry = PrometheusCollectorRegistry()
            let recorder = Recorder<String>()
            let bot = Self.bot(recorder: recorder)
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let bob = try await TestUser.join(server, id: "bob", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"], metricsFactory: PrometheusMetricsFactory(registry: registry)) { _ in
                let root = try await ann.send(text: "a thread")
                try await ann.client.sendMessage(OutgoingMessage(text: "/hurried", parentId: root.id), to: ann.channel, as: "ann")
                let mute = try await bob.send(text: "/mute")
                try await Task.sleep(for: .milliseconds(500))
                let answer = try await ann.client.sendMessage(OutgoingMessage(text: "in time", parentId: root.id), to: ann.channel, as: "ann")
                try await recorder.wait { $0.contains("turn 0: in time") }

                var notices: [Message] = []
                try await eventually("the bot says it stopped waiting") {
                    notices = try await ann.client.replies(to: root.id).filter { $0.user?.id == "clerk-bot" }
                    return !notices.isEmpty
                }
                #expect(notices.map(\.text) == ["I stopped waiting."])
                #expect(notices.first?.mentionedUsers.map(\.id) == ["ann"])
                let toldAt = try #require(notices.first?.createdAt)
                let answeredAt = try #require(answer.createdAt)
                #expect(toldAt >= answeredAt.addingTimeInterval(2), "the answer gave it another two seconds")
                #expect(toldAt < answeredAt.addingTimeInterval(5))
                let annKey = ConversationKey(bot: "clerk", channel: "messaging:general", user: "ann", thread: root.id)
                #expect(try await bot.conversationStore.conversation(for: annKey) == nil, "it is over")

                // Once: nothing more is said, and a later message in the thread is routed as usual.
                try await Task.sleep(for: .milliseconds(800))
                try await ann.client.sendMessage(OutgoingMessage(text: "later", parentId: root.id), to: ann.channel, as: "ann")
                try await recorder.wait { $0.contains("message later") }
                #expect(try await ann.client.replies(to: root.id).filter { $0.user?.id == "clerk-bot" }.count == 1)
                #expect(!recorder.all.contains { $0.hasPrefix("turn 1") })

                // A type without expiredText: nothing said; the conversation waits for the next message.
                let channelNotices = try await bob.client.queryChannel(bob.channel, messageLimit: 100).messages.filter { $0.user?.id == "clerk-bot" }
                #expect(channelNotices.isEmpty, "\(channelNotices.map(\.text)) after \(mute.text)")
                let bobKey = ConversationKey(bot: "clerk", channel: "messaging:general", user: "bob")
                #expect(try await bot.conversationStore.conversation(for: bobKey) != nil)

                let samples = MetricSamples(registry.emitToString())
                #expect(samples["chatbotkit_bot_conversation_events_total", ["bot": "clerk", "conversation": "Hurried", "event": "expired"]] == 1)
                #expect(samples["chatbotkit_bot_deliveries_total", ["bot": "clerk", "trigger": "conversation_timeout"]] == 1)
            }
        }
    }

    @Test("one that timed out while the bot was stopped is not told at the restart but at the person's next message, which is routed as usual")
    func timedOutWhileStopped() async throws {
        let scratch = try ScratchFolder("conversations")
        let file = scratch.path("conversations.json")
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let first = Self.bot(recorder: Recorder<String>())
            first.conversationStore = FileConversationStore(file: file)
            let key = ConversationKey(bot: "clerk", channel: "messaging:general", user: "ann")
            try await server.withBot(first, channels: ["messaging:general"]) { _ in
                try await ann.send(text: "/hurried")
                try await eventually("the conversation is saved") { try await first.conversationStore.conversation(for: key) != nil }
            }
            // Past the two seconds: it times out while the bot is stopped.
            try await Task.sleep(for: .milliseconds(2_500))

            let recorder = Recorder<String>()
            let second = Self.bot(recorder: recorder)
            second.conversationStore = FileConversationStore(file: file)
            try await server.withBot(second, channels: ["messaging:general"]) { _ in
                try await Task.sleep(for: .milliseconds(1_500))
                let quiet = try await ann.client.queryChannel(ann.channel, messageLimit: 100).messages.filter { $0.user?.id == "clerk-bot" }
                #expect(quiet.isEmpty, "nothing said at the restart: \(quiet.map(\.text))")
                let late = try await ann.send(text: "late")
                #expect(try await ann.replies(to: late, from: "clerk-bot").map(\.text) == ["I stopped waiting."])
                try await recorder.wait { $0.contains("message late") }
            }
            #expect(!recorder.all.contains { $0.hasPrefix("turn") })
        }
    }
}
