import ChatBotKit
import ChatBotKitPostgres
import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Prometheus
import Testing

/// Counts the answers it is given.
private struct Tally: Conversation {
    var answers: [String]
}

/// Waits a second for an answer, and says so when none comes.
private struct Brief: Conversation {
    static let timeout: Duration = .seconds(1)
    static let expiredText: String? = "Time's up."
}

@Suite("Scale-out: conversations in PostgreSQL, shared by the nodes")
struct ScaledConversationTests {
    @Test("saved, read, replaced, listed by timeout and removed per bot, person, channel and thread; long-expired ones are forgotten")
    func roundTrip() async throws {
        try await withStore { store in
            let key = ConversationKey(bot: "clerk", channel: "messaging:general", user: "ann")
            let inThread = ConversationKey(bot: "clerk", channel: "messaging:general", user: "ann", thread: "root-1")
            #expect(try await store.conversation(for: key) == nil)
            let start = Date(timeIntervalSince1970: 1_790_000_000.123456)
            let saved = SavedConversation(
                key: key, name: "Tally", state: .object(["answers": .array(["a", "ü \"quoted\""])]), startedBy: "m1", answered: ["m2"],
                lastTurnAt: start, expiresAt: start.addingTimeInterval(600))
            try await store.save(saved)
            #expect(try await store.conversation(for: key) == saved, "dates keep their microseconds, the state its text")
            #expect(try await store.conversation(for: inThread) == nil, "a thread's conversation is another")
            var next = saved
            next.state = .object(["answers": .array([])])
            next.answered = ["m2", "m3"]
            try await store.save(next)
            #expect(try await store.conversation(for: key) == next)

            var old = saved
            old.key = ConversationKey(bot: "clerk", channel: "messaging:general", user: "bob")
            old.expiresAt = start.addingTimeInterval(-8 * 24 * 3600)
            try await store.save(old)
            var later = saved
            later.key = inThread
            later.lastTurnAt = start.addingTimeInterval(60)
            try await store.save(later)
            #expect(try await store.conversation(for: old.key) == nil, "expired more than a week before a save: forgotten")
            #expect(try await store.conversation(for: inThread) == later)

            var otherBot = saved
            otherBot.key = ConversationKey(bot: "greeter", channel: "messaging:general", user: "ann")
            try await store.save(otherBot)
            let timeout = start.addingTimeInterval(600)
            let expiring = try await store.conversations(of: "clerk", expiring: timeout..<timeout.addingTimeInterval(1))
            #expect(expiring == [next, later], "the bot's own, soonest first, then by channel, person and thread")
            #expect(try await store.conversations(of: "clerk", expiring: start..<timeout).isEmpty, "a range leaves its end out")
            let memory = MemoryConversationStore()
            for conversation in [later, otherBot, next] { memory.save(conversation) }
            #expect(memory.conversations(of: "clerk", expiring: timeout..<timeout.addingTimeInterval(1)) == expiring, "as the memory store lists them")

            try await store.removeConversation(for: key)
            #expect(try await store.conversation(for: key) == nil)
            #expect(try await store.conversation(for: inThread) == later)
        }
    }

    @Test("a conversation started on one node goes on on the node its channel moves to")
    func followsTheChannel() async throws {
        try await ScaleOutTests.withCluster { store, server, ann, _ in
            let turns = Recorder<String>()
            func tallyBot(node: String) -> Bot {
                let bot = Bot(name: "relay", user: User(id: "relay-bot"))
                bot.conversationStore = store
                bot.command("tally") { _, context in try await context.startConversation(Tally(answers: [])) }
                bot.onConversation(Tally.self) { tally, context in
                    let answers = tally.answers + [context.message.text]
                    turns.record("\(node): \(answers.joined(separator: ","))")
                    return .next(Tally(answers: answers))
                }
                return bot
            }
            let channel = ScaleOutTests.channels[0]
            let nodeA = try await server.startBot(
                tallyBot(node: "node-a"), channels: [channel], configuration: ScaleOutTests.configuration(store, node: "node-a"))
            try await eventually("node-a holds the channel") { nodeA.service.leasedChannels == [channel] }
            let room = ann.client.channel(channel)
            try await room.sendMessage(text: "/tally")
            try await room.sendMessage(text: "one")
            try await turns.wait { $0 == ["node-a: one"] }
            try await eventually("the turn is saved") {
                try await store.conversation(for: ConversationKey(bot: "relay", channel: channel, user: "ann"))?.answered.count == 1
            }
            try await nodeA.stop()
            let nodeB = try await server.startBot(
                tallyBot(node: "node-b"), channels: [channel], configuration: ScaleOutTests.configuration(store, node: "node-b"))
            try await eventually("node-b holds the channel") { nodeB.service.leasedChannels == [channel] }
            try await room.sendMessage(text: "two")
            try await turns.wait { $0.count == 2 }
            #expect(turns.all == ["node-a: one", "node-b: one,two"])
            try await nodeB.stop()
        }
    }

    @Test("a conversation's timeout is told once, by the node that holds its channel")
    func timeoutToldByTheHolder() async throws {
        try await ScaleOutTests.withCluster { store, server, ann, _ in
            func briefBot() -> Bot {
                let bot = Bot(name: "relay", user: User(id: "relay-bot"))
                bot.conversationStore = store
                bot.command("brief") { _, context in try await context.startConversation(Brief()) }
                bot.onConversation(Brief.self) { _, _ in .end }
                return bot
            }
            let (registryA, registryB) = (PrometheusCollectorRegistry(), PrometheusCollectorRegistry())
            let nodeA = try await server.startBot(
                briefBot(), channels: ScaleOutTests.channels, configuration: ScaleOutTests.configuration(store, node: "node-a"),
                metricsFactory: PrometheusMetricsFactory(registry: registryA))
            let nodeB = try await server.startBot(
                briefBot(), channels: ScaleOutTests.channels, configuration: ScaleOutTests.configuration(store, node: "node-b"),
                metricsFactory: PrometheusMetricsFactory(registry: registryB))
            try await eventually("the channels are shared out") {
                let (a, b) = (nodeA.service.leasedChannels, nodeB.service.leasedChannels)
                return a.isDisjoint(with: b) && a.union(b) == Set(ScaleOutTests.channels) && !a.isEmpty && !b.isEmpty
            }
            let channel = ScaleOutTests.channels[0]
            let (holder, other) = nodeA.service.leasedChannels.contains(channel) ? (registryA, registryB) : (registryB, registryA)
            try await ann.client.channel(channel).sendMessage(text: "/brief")
            func told() async throws -> [String] {
                try await ann.client.queryChannel(channel, messageLimit: 50).messages.filter { $0.user?.id == "relay-bot" }.map(\.text)
            }
            try await eventually("the timeout is told") { try await !told().isEmpty }
            try await Task.sleep(for: .milliseconds(600))
            #expect(try await told() == ["Time's up."])
            func expired(_ registry: PrometheusCollectorRegistry) -> Double {
                MetricSamples(registry.emitToString())[
                    "chatbotkit_bot_conversation_events_total", ["bot": "relay", "conversation": "Brief", "event": "expired"]] ?? 0
            }
            #expect(expired(holder) == 1, "the channel's holder told it")
            #expect(expired(other) == 0, "the other node left it alone")
            try await nodeB.stop()
            try await nodeA.stop()
        }
    }
}
