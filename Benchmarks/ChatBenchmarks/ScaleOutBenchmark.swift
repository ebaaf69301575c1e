import ChatBotKit
import ChatBotKitPostgres
import ChatBotKitTesting
import ChatModels
import Foundation

/// What scaling out (`scale_out:`) costs a node on the events of the channels it holds: the same
/// pipeline as ``MetricsBenchmark`` (dev server frames, connection, decode, dedup, mailboxes,
/// routing), on one node without scale-out and on one with it (leases of the corpus's 40
/// channels in a PostgreSQL server of the benchmark's own, at the default 15 s lease),
/// alternating, best of `passes` each.
/// `ChatBenchmarks scaleout [events] [passes]`
enum ScaleOutBenchmark {
    static func run(_ arguments: [String]) async throws {
        let count = arguments.first.flatMap(Int.init) ?? 50_000
        let passes = arguments.count > 1 ? Int(arguments[1]) ?? 5 : 5
        var random = SplitMix64(seed: 7)
        let frames = (0..<count).map { CorpusWriter.event(index: $0, random: &random) }
        // The corpus's channels: a scaled-out node handles the channels it follows and holds.
        let channels = (0..<40).map { ChannelId(type: .messaging, id: "team-\($0)") }
        var without = 0.0
        var with = 0.0
        for _ in 0..<passes {
            without = max(without, try await MetricsBenchmark.handledPerSecond(frames, factory: nil, channels: channels))
            // A database per pass: every pass replays the same message ids, which the leases
            // of the last pass would pass on as handled.
            let rate = try await TestPostgres.with { postgres in
                let store = PostgresChannelLeaseStore(connection: try PostgresConnectionString(postgres.connectionString))
                let pool = Task { await store.run() }
                defer { pool.cancel() }
                var configuration = TestChatServer.testBotConfiguration
                configuration.scaleOut = BotService.ScaleOut(store: store, node: "bench")
                return try await MetricsBenchmark.handledPerSecond(frames, factory: nil, configuration: configuration, channels: channels)
            }
            with = max(with, rate)
        }
        print(
            String(
                format: "Bot on one node vs scaled out (WebSocket + decode + dispatch, %d events in 40 channels, best of %d): "
                    + "one node %.0f events/s, scaled out, holding the channels' leases %.0f events/s (%+.1f%%)",
                count, passes, without, with, (with / without - 1) * 100))
        print(String(format: "RESULT scaleout single_events_per_s=%.0f leased_events_per_s=%.0f", without, with))
    }
}
