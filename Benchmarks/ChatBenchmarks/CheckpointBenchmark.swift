import ChatBotKit
import ChatBotKitTesting
import Foundation

/// What keeping a checkpoint (`catch_up`, on by default in `bots run`) costs a running bot: the
/// same pipeline as ``MetricsBenchmark`` (dev server frames, connection, decode, dedup,
/// mailboxes, routing), without a checkpoint and with one saved every second, alternating, best
/// of `passes` each; and the size of the checkpoint file at the end.
/// `ChatBenchmarks checkpoint [events] [passes]`
enum CheckpointBenchmark {
    static func run(_ arguments: [String]) async throws {
        let count = arguments.first.flatMap(Int.init) ?? 50_000
        let passes = arguments.count > 1 ? Int(arguments[1]) ?? 5 : 5
        var random = SplitMix64(seed: 7)
        let frames = (0..<count).map { CorpusWriter.event(index: $0, random: &random) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("checkpoint-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var without = 0.0
        var with = 0.0
        var fileSize = 0
        for pass in 0..<passes {
            without = max(without, try await MetricsBenchmark.handledPerSecond(frames, factory: nil))
            let file = folder.appendingPathComponent("pass-\(pass).json")
            var configuration = TestChatServer.testBotConfiguration
            configuration.catchUp = BotService.CatchUp(checkpointFile: file)
            with = max(with, try await MetricsBenchmark.handledPerSecond(frames, factory: nil, configuration: configuration))
            fileSize = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        }
        print(
            String(
                format: "Bot with a checkpoint (WebSocket + decode + dispatch, %d events, best of %d): none %.0f events/s, "
                    + "checkpoint saved every second %.0f events/s (%+.1f%%); checkpoint file %d bytes",
                count, passes, without, with, (with / without - 1) * 100, fileSize))
        print(String(format: "RESULT checkpoint none_events_per_s=%.0f checkpoint_events_per_s=%.0f", without, with))
    }
}
