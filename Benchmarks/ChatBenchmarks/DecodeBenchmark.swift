import ChatModels
import Foundation
import WorkoutBot

/// Decode + classify: parses each `message.new` event of the corpus into an `Event`, counts its
/// attachments by type and decodes the workout payload into its typed struct.
/// `ChatBenchmarks decode <corpus-path> [events] [rounds]`
enum DecodeBenchmark {
    struct Tally {
        var counts: [AttachmentType: Int] = [:]
        var workouts = 0
        var distance = 0
        var failures = 0
    }

    static func run(_ arguments: [String]) throws {
        let corpusURL = URL(fileURLWithPath: arguments.first ?? "Benchmarks/.out/corpus.ndjson")
        let eventCount = arguments.count > 1 ? Int(arguments[1]) ?? 10_000 : 10_000
        let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5
        try FileManager.default.createDirectory(at: corpusURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        let corpusBytes = try CorpusWriter.write(count: eventCount, to: corpusURL)
        let lines = try events(at: corpusURL)
        print("corpus: \(lines.count) events, \(corpusBytes) bytes (\(corpusBytes / lines.count) bytes/event) at \(corpusURL.path)")
        var best = Duration.seconds(1_000_000)
        var tally = Tally()
        for _ in 0..<rounds {
            let (result, elapsed) = try runOnce(lines[...])
            tally = result
            best = min(best, elapsed)
        }
        let seconds = best.seconds
        let eventsPerSecond = Double(lines.count) / seconds
        let megabytesPerSecond = Double(corpusBytes) / seconds / 1_000_000
        let sortedCounts = tally.counts.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key)=\($0.value)" }
        print("classified: \(sortedCounts.joined(separator: " ")), workouts typed: \(tally.workouts), failures: \(tally.failures)")
        print(String(format: "ChatModels typed decode+classify: %.0f events/s, %.1f MB/s (best of %d rounds)", eventsPerSecond, megabytesPerSecond, rounds))
        print(String(format: "RESULT decode swift_events_per_s=%.0f swift_mb_per_s=%.1f", eventsPerSecond, megabytesPerSecond))
        try printStages(lines, rounds: rounds, total: seconds)
    }

    /// Where the time of one event goes: the timed loop again, one step at a time (best of
    /// `rounds` each), so a change can be traced to the step it affects. Then the typed payload
    /// on its own, beside the two costs no JSON decoder can remove: Codable's own dispatch
    /// (through a decoder that parses nothing) and Foundation's `URL(string:)` for its link.
    static func printStages(_ lines: [Data], rounds: Int, total: Double) throws {
        func microseconds<Input>(_ inputs: [Input], _ step: (Input) throws -> Int) rethrows -> Double {
            try bestMicroseconds(inputs, rounds: rounds, step)
        }
        let decode = try microseconds(lines) { try Event.decode(frame: $0).message?.attachments.count ?? 0 }
        let classify = try microseconds(lines) { try Event.decode(frame: $0).message?.attachmentCounts.count ?? 0 }
        let perEvent = total / Double(lines.count) * 1e6
        print(
            String(
                format: "per event: Event.decode %.2f us, + attachment counts %.2f us, + typed workout payload %.2f us (total %.2f us)",
                decode, max(0, classify - decode), max(0, perEvent - classify), perEvent))

        // Copied out of their events, so that each payload is compact in memory as it is when
        // its event has just been read.
        let payloads = try lines.compactMap { line in
            try Event.decode(frame: line).message?.attachments.first { $0.type == WorkoutAttachmentPayload.type }.map { Data($0.payload) }
        }
        let links = try payloads.map { try RawJSONDecoder().decode(WorkoutAttachmentPayload.self, from: $0).imageURL?.absoluteString ?? "" }
        let codable = try microseconds(payloads) { try RawJSONDecoder().decode(WorkoutAttachmentPayload.self, from: $0).workoutDistanceMeters ?? 0 }
        let nothing = NullDecoder(url: URL(string: "https://example.com/workouts/1.png")!)
        let dispatch = try microseconds(payloads) { _ in try WorkoutAttachmentPayload(from: nothing).workoutDistanceMeters ?? 0 }
        let parseURL = microseconds(links) { URL(string: $0) == nil ? 0 : 1 }
        print(
            String(
                format: "workout payload alone: %.2f us through RawJSONDecoder, of which at least %.2f us Codable's own dispatch "
                    + "(a decoder that parses nothing) and %.2f us URL(string:) for its image_url",
                codable, dispatch, parseURL))
    }

    /// The corpus's events, one `Data` each (its lines, empty ones left out), as both `decode`
    /// and `decode-serve` time them.
    static func events(at corpusURL: URL) throws -> [Data] {
        try Data(contentsOf: corpusURL).split(separator: 0x0A).map { Data($0) }
    }

    static func runOnce(_ lines: ArraySlice<Data>) throws -> (Tally, Duration) {
        var tally = Tally()
        let clock = ContinuousClock()
        let start = clock.now
        for line in lines {
            let event = try Event.decode(frame: line)
            guard let message = event.message else { continue }
            for (type, count) in message.attachmentCounts { tally.counts[type, default: 0] += count }
            for result in message.decodeAttachments(payloadType: WorkoutAttachmentPayload.self) {
                switch result {
                case .success(let workout):
                    tally.workouts += 1
                    tally.distance += workout.workoutDistanceMeters ?? 0
                case .failure:
                    tally.failures += 1
                }
            }
        }
        return (tally, clock.now - start)
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
