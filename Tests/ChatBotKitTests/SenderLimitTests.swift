import ChatBotKitConfiguration
@testable import BotsCLI
import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatLocking
import ChatModels
import Foundation
import Logging
import Prometheus
import Testing

/// A kind whose own middleware records what reaches it, to see where `bots run` puts the limit.
private enum Counted: BotKind {
    static let name = "sender-limit-counted"
    static let seen = Recorder<String>()
    struct Seen: BotMiddleware {
        func handle(_ message: Message, context: BotContext, next: @Sendable (Message, BotContext) async throws -> Void) async throws {
            Counted.seen.record("middleware \(message.text)")
            try await next(message, context)
        }
    }
    static func makeBot(_ entry: BotsConfiguration.BotEntry, environment: BotKindEnvironment) throws -> Bot {
        let bot = Bot(name: entry.name, user: User(id: entry.user))
        bot.use(Seen())
        bot.onMessage { context in Counted.seen.record("handled \(context.message.text)") }
        return bot
    }
}

@Suite("Sender limits: at most so many new messages of each sender handled")
struct SenderLimitTests {
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    @Test("a burst of the rate's count, then one per period/count, by the messages' own times; told once per period")
    func bucket() throws {
        let limit = SenderLimit(.init(rate: try #require(.init("2/10s"))))
        func at(_ seconds: Double, _ sender: String = "ann") -> SenderLimit.Verdict { limit.admit(sender, at: Self.start + seconds) }
        #expect(at(0) == .handle)
        #expect(at(0.1) == .handle)
        #expect(at(0.2) == .skip(notify: true, retryAfter: .milliseconds(4_800)), "out of tokens: the next one is 5 s after the first")
        #expect(at(1) == .skip(notify: false, retryAfter: .seconds(4)), "told once per period, not once per message")
        #expect(at(0, "bob") == .handle, "each sender has a bucket of their own")
        #expect(at(5) == .handle, "one token back after period/count")
        #expect(at(4) == .skip(notify: false, retryAfter: .seconds(5)), "an older message (out of order) gives nothing back")
        #expect(at(10.2) == .handle)
        #expect(at(10.3) == .skip(notify: true, retryAfter: .milliseconds(4_700)), "a new period: told again")
        #expect(at(60) == .handle)
        #expect(at(60) == .handle, "a full bucket again after a quiet period, never more than the burst")
        #expect(at(60) == .skip(notify: true, retryAfter: .seconds(5)))

        let quiet = SenderLimit(.init(rate: try #require(.init("1/min")), notifies: false))
        #expect(quiet.admit("ann", at: Self.start) == .handle)
        #expect(quiet.admit("ann", at: Self.start + 1) == .skip(notify: false, retryAfter: .seconds(59)), "notify: false never tells")
    }

    @Test("senders whose bucket is full again are forgotten, so a flood of one-time senders does not grow it for ever")
    func forgetsQuietSenders() throws {
        let limit = SenderLimit(.init(rate: try #require(.init("5/min"))))
        for index in 0..<1_000 { _ = limit.admit("sender-\(index)", at: Self.start) }
        #expect(limit.trackedSenders == 1_000)
        for index in 0..<100 { _ = limit.admit("late-\(index)", at: Self.start + 61) }
        #expect(limit.trackedSenders < 200, "the first thousand were quiet for a whole period")
        #expect(limit.admit("sender-0", at: Self.start + 61) == .handle)
    }

    @Test("what a limited sender is told names the limit and when to try again")
    func notice() throws {
        let limit = SenderLimit(.init(rate: try #require(.init("20/min"))))
        #expect(
            limit.notice(to: "ann", retryAfter: .milliseconds(2_100))
                == "ann, I handle at most 20 messages a minute from each sender, so I skipped this one. Try again in 3s.")
        let slow = SenderLimit(.init(rate: try #require(.init("1/15s"))))
        #expect(slow.notice(to: "bob", retryAfter: .seconds(15)).hasPrefix("bob, I handle at most 1 message every 15s from each sender"))
    }

    @Test("through the dev server: the sender over the limit is skipped and told once; others, exempt users, edits and reactions are not limited")
    func throughTheServer() async throws {
        try await TestChatServer.withServer { server in
            let registry = PrometheusCollectorRegistry()
            let recorder = Recorder<String>()
            let bot = Bot(name: "limited", user: User(id: "limited-bot"))
            bot.use(SenderLimit(.init(rate: try #require(.init("2/min")), exempt: ["trusted"])))
            bot.onMessage { context in recorder.record("\(context.message.user?.id ?? "?"): \(context.message.text)") }
            bot.onMessageUpdated { context in recorder.record("edit \(context.message.text)") }
            bot.onReaction { reaction, _ in recorder.record("reaction \(reaction.type)") }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let bob = try await TestUser.join(server, id: "bob", channel: "messaging:general")
            let trusted = try await TestUser.join(server, id: "trusted", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"], metricsFactory: PrometheusMetricsFactory(registry: registry)) { _ in
                var sent: [Message] = []
                for index in 1...4 { sent.append(try await ann.send(text: "ann \(index)")) }
                for index in 1...3 { try await trusted.send(text: "trusted \(index)") }
                try await bob.send(text: "bob 1")
                let notices = try await ann.replies(to: sent[1], from: "limited-bot")
                try await recorder.wait { $0.contains("bob: bob 1") && $0.filter { $0.hasPrefix("trusted:") }.count == 3 }
                try await ann.client.updateMessage(sent[0].id, text: "ann 1, edited")
                try await recorder.wait { $0.contains("edit ann 1, edited") }
                try await ann.client.sendReaction("like", to: sent[0].id, as: "ann")
                try await recorder.wait { $0.contains("reaction like") }
                #expect(notices.count == 1, "told once, for the third message; the fourth is skipped silently")
                #expect(notices.first?.text.hasPrefix("ann, I handle at most 2 messages a minute from each sender") == true)
                #expect(recorder.all.filter { $0.hasPrefix("ann:") } == ["ann: ann 1", "ann: ann 2"])
                let samples = MetricSamples(registry.emitToString())
                #expect(samples["chatbotkit_bot_sender_limited_total", ["bot": "limited"]] == 2)
            }
        }
    }

    @Test("bots.yaml: sender_limit as a rate or with notify and exempt; a change rebuilds the bot in place")
    func configuration() throws {
        let yaml = """
            server: {api_key: key, api_secret: a-secret-of-at-least-32-bytes-long}
            bots:
              - {name: plain, kind: echo, channels: [messaging:general]}
              - {name: short, kind: echo, channels: [messaging:general], sender_limit: 20/min}
              - name: long
                kind: echo
                channels: [messaging:general]
                sender_limit: {messages: 5/10s, notify: off, exempt: [workout-bot, admin]}
            """
        let configuration = try BotsConfiguration.parse(yaml)
        #expect(configuration.bots[0].senderLimit == nil)
        #expect(configuration.bots[1].senderLimit == SenderLimit.Rule(rate: try #require(.init("20/min"))))
        #expect(configuration.bots[2].senderLimit == SenderLimit.Rule(rate: try #require(.init("5/10s")), notifies: false, exempt: ["workout-bot", "admin"]))
        let stricter = try BotsConfiguration.parse(yaml.replacingOccurrences(of: "20/min", with: "10/min"))
        let changes = stricter.changes(from: configuration)
        #expect(changes.reconfigured.map(\.name) == ["short"], "a new limit is swapped in between two handlers")
        #expect(changes.restarted.isEmpty && changes.added.isEmpty && changes.removed.isEmpty)
        let removed = try BotsConfiguration.parse(yaml.replacingOccurrences(of: ", sender_limit: 20/min", with: ""))
        #expect(removed.changes(from: configuration).reconfigured.map(\.name) == ["short"])
    }

    @Test("bots run puts an entry's sender_limit outside the kind's own middleware, so a skipped message reaches none of it")
    func outsideTheKind() async throws {
        BotsCLI.registered.withLock { $0[Counted.name] = Counted.self }
        let configuration = try BotsConfiguration.parse(
            """
            server: {api_key: key, api_secret: a-secret-of-at-least-32-bytes-long}
            bots:
              - {name: counted, kind: \(Counted.name), user: counted-bot, channels: [messaging:general], sender_limit: 1/min}
            """)
        let scratch = try ScratchFolder("sender-limit")
        let folder = scratch.path("sender-limit")
        let bot = try RunCommand.makeBot(configuration.bots[0], configuration: configuration, pathRoot: folder, logger: .init(label: "test"))
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let first = try await ann.send(text: "one")
                try await ann.send(text: "two")
                _ = try await ann.replies(to: first, from: "counted-bot")
                try await Counted.seen.wait { $0.contains("handled one") }
            }
        }
        #expect(Counted.seen.all == ["middleware one", "handled one"])
    }
}
