import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import CoreMetrics
import Foundation
import Prometheus
import Synchronization
import Tracing
import WorkoutBot

/// What metrics cost a running bot: corpus `message.new` frames pushed by the dev server (in
/// this process, loopback) through a real BotService (connection, decode, dedup, mailboxes,
/// routing to no-op handlers for workout, image, file and every message), measured as events/s
/// handled, without a metrics backend (swift-metrics' no-op, the default) and with a Prometheus
/// registry, alternating, best of `passes` each.
/// `ChatBenchmarks metrics [events] [passes]`
enum MetricsBenchmark {
    static func run(_ arguments: [String]) async throws {
        let count = arguments.first.flatMap(Int.init) ?? 50_000
        let passes = arguments.count > 1 ? Int(arguments[1]) ?? 5 : 5
        var random = SplitMix64(seed: 5)
        let frames = (0..<count).map { CorpusWriter.event(index: $0, random: &random) }
        var best: [String: Double] = [:]
        var exposition = 0
        for _ in 0..<passes {
            best["none", default: 0] = max(best["none", default: 0], try await handledPerSecond(frames, factory: nil))
            let registry = PrometheusCollectorRegistry()
            best["prometheus", default: 0] = max(
                best["prometheus", default: 0], try await handledPerSecond(frames, factory: PrometheusMetricsFactory(registry: registry)))
            exposition = registry.emitToBuffer().count
        }
        let none = best["none"]!
        let prometheus = best["prometheus"]!
        print(
            String(
                format: "Bot with metrics (WebSocket + decode + dispatch, %d events, best of %d): no backend %.0f events/s, "
                    + "Prometheus %.0f events/s (%+.1f%%); /metrics page %d bytes",
                count, passes, none, prometheus, (prometheus / none - 1) * 100, exposition))
        print(String(format: "RESULT metrics none_events_per_s=%.0f prometheus_events_per_s=%.0f", none, prometheus))
    }

    static func handledPerSecond(
        _ frames: [String], factory: (any MetricsFactory)?, configuration: BotService.Configuration = TestChatServer.testBotConfiguration,
        channels: [ChannelId] = ["messaging:bench"], tracer: (any Tracer)? = nil
    ) async throws -> Double {
        let handled = Atomic<Int>(0)
        let bot = Bot(name: "metered-bot")
        bot.on(WorkoutAttachmentPayload.self) { _, _ in }
        bot.on(.image) { _, _ in }
        bot.on(.file) { _, _ in }
        bot.onMessage { _ in handled.add(1, ordering: .relaxed) }
        let window = 1_000
        return try await TestChatServer.withServer { server in
            try await server.withBot(bot, channels: channels, configuration: configuration, metricsFactory: factory, tracer: tracer) { _ in
                let clock = ContinuousClock()
                let start = clock.now
                for (sent, frame) in frames.enumerated() {
                    while sent - handled.load(ordering: .relaxed) >= window { await Task.yield() }
                    guard await server.server.sendRawFrame(frame, toUser: "metered-bot") == 1 else {
                        throw BenchmarkError("the bot's connection is gone after \(sent) frames")
                    }
                }
                let deadline = clock.now + .seconds(60)
                while handled.load(ordering: .relaxed) < frames.count {
                    guard clock.now < deadline else { throw BenchmarkError("only \(handled.load(ordering: .relaxed)) events were handled") }
                    await Task.yield()
                }
                return Double(frames.count) / (clock.now - start).seconds
            }
        }
    }
}
