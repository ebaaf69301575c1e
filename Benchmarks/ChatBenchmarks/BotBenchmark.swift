import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Foundation
import WorkoutBot
import Logging
import Synchronization

/// Two measurements of the bot runtime:
/// 1. dispatch: corpus events through decode, routing (a typed workout route, image and file
///    routes, an every-message route, all no-ops) on one task, so one core: events/s;
/// 2. latency: a real bot on the dev server (in this process, loopback) while `message.new`
///    frames are pushed at 1,000 per second; the time from the server writing a frame to the
///    handler starting, p50/p99.
/// `ChatBenchmarks bot [dispatch-events] [latency-seconds]`
enum BotBenchmark {
    static func run(_ arguments: [String]) async throws {
        let dispatchCount = arguments.first.flatMap(Int.init) ?? 50_000
        let latencySeconds = arguments.count > 1 ? Int(arguments[1]) ?? 10 : 10
        try await dispatch(count: dispatchCount)
        if latencySeconds > 0 { try await latency(seconds: latencySeconds, rate: 1_000) }
    }

    static func noOpBot() -> Bot {
        let bot = Bot(name: "bench-bot")
        bot.on(WorkoutAttachmentPayload.self) { _, _ in }
        bot.on(.image) { _, _ in }
        bot.on(.file) { _, _ in }
        bot.onMessage { _ in }
        return bot
    }

    /// Dispatch with the plain no-op bot, then with a `SenderLimit` around it that skips nothing
    /// (what a `sender_limit` costs a bot whose senders keep to it), then with a conversation
    /// handler while no sender is in a conversation (the look-up every message of such a bot costs).
    static func dispatch(count: Int) async throws {
        var random = SplitMix64(seed: 11)
        let frames = (0..<count).map { Data(CorpusWriter.event(index: $0, random: &random).utf8) }
        let plain = try await dispatch(frames, through: noOpBot())
        print(String(format: "Bot dispatch (decode + routing + no-op handlers, one task): %.0f events/s (best of 3, %d events)", plain, count))
        print(String(format: "RESULT bot dispatch_events_per_s=%.0f", plain))
        let limitedBot = noOpBot()
        limitedBot.use(SenderLimit(.init(rate: .init(count: 1_000_000, per: .seconds(1))!)))
        let limited = try await dispatch(frames, through: limitedBot)
        print(String(format: "  with a sender_limit that skips nothing: %.0f events/s (%+.1f%%)", limited, (limited / plain - 1) * 100))
        print(String(format: "RESULT bot dispatch_sender_limited_events_per_s=%.0f", limited))
        let conversingBot = noOpBot()
        conversingBot.onConversation(BenchConversation.self) { _, _ in .end }
        let conversing = try await dispatch(frames, through: conversingBot)
        print(String(format: "  with conversations, none under way: %.0f events/s (%+.1f%%)", conversing, (conversing / plain - 1) * 100))
        print(String(format: "RESULT bot dispatch_conversing_events_per_s=%.0f", conversing))
    }

    /// What a bot with conversations looks each sender up for.
    struct BenchConversation: Conversation {
        var step: Int
    }

    /// Events per second of `frames` decoded and handled by `bot`, best of 3.
    static func dispatch(_ frames: [Data], through bot: Bot) async throws -> Double {
        // Never called: the no-op handlers do not talk to the server.
        let client = ChatClient(
            configuration: ChatClientConfiguration(
                apiKey: "bench", baseURL: URL(string: "http://127.0.0.1:9")!, credentials: .apiSecret("unused-secret-unused-secret"),
                userId: "bench-bot"))
        let logger = Logger(label: "bench")
        var best = Duration.seconds(1_000)
        for _ in 0..<3 {
            let clock = ContinuousClock()
            let start = clock.now
            for frame in frames {
                let event = try Event.decode(frame: frame)
                guard let message = event.message, let cid = event.cid else { continue }
                await bot.handle(message, context: BotContext(message: message, channel: client.channel(cid), bot: bot, logger: logger))
            }
            best = min(best, clock.now - start)
        }
        return Double(frames.count) / best.seconds
    }

    static func latency(seconds: Int, rate: Int) async throws {
        let delays = Mutex<[UInt64]>([])
        let total = seconds * rate
        let bot = Bot(name: "latency-bot")
        bot.onMessage { context in
            let now = DispatchTime.now().uptimeNanoseconds
            guard let sentAt = context.message.extraData["bench_sent_ns"]?.stringValue.flatMap(UInt64.init) else { return }
            delays.withLock { $0.append(now - sentAt) }
        }
        try await TestChatServer.withServer { server in
            try await server.withBot(bot, channels: ["messaging:bench"]) { _ in
                let clock = ContinuousClock()
                let start = clock.now
                let tick = Duration.milliseconds(10)
                let perTick = rate / 100
                var sent = 0
                while sent < total {
                    for _ in 0..<perTick where sent < total {
                        let frame = frameJSON(index: sent, sentAt: DispatchTime.now().uptimeNanoseconds)
                        await server.server.sendRawFrame(frame, toUser: "latency-bot")
                        sent += 1
                    }
                    try await Task.sleep(until: start + tick * (sent / perTick), clock: clock)
                }
                let deadline = clock.now + .seconds(30)
                while delays.withLock({ $0.count }) < total, clock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            }
        }
        let sorted = delays.withLock { $0 }.sorted()
        guard !sorted.isEmpty else { throw BenchmarkError("no message reached the handler") }
        func percentile(_ p: Double) -> Double { Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1_000_000 }
        print(
            String(
                format: "Bot latency at %d msg/s for %d s (server writes frame -> handler starts): %d/%d handled, p50 %.2f ms, p99 %.2f ms, max %.2f ms",
                rate, seconds, sorted.count, total, percentile(0.5), percentile(0.99), percentile(1)))
        print(String(format: "RESULT bot latency_p50_ms=%.2f latency_p99_ms=%.2f handled=%d sent=%d", percentile(0.5), percentile(0.99), sorted.count, total))
    }

    /// A `message.new` from a user in `messaging:bench`, stamped with the time it is sent.
    static func frameJSON(index: Int, sentAt: UInt64) -> String {
        let now = RFC3339.string(from: Date())
        return """
            {"type":"message.new","cid":"messaging:bench","channel_type":"messaging","channel_id":"bench","created_at":"\(now)",\
            "message":{"id":"bench-\(index)","text":"message \(index)","type":"regular","cid":"messaging:bench",\
            "user":{"id":"ann","name":"Ann"},"attachments":[],"created_at":"\(now)","bench_sent_ns":"\(sentAt)"}}
            """
    }
}
