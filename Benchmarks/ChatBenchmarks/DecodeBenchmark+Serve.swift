import ChatModels
import Foundation

extension DecodeBenchmark {
    /// Times chunks of the corpus on request, for Benchmarks/peers/paired_decode.py, which times
    /// the peers on the same chunks in between: `ChatBenchmarks decode-serve <corpus-path>`.
    ///
    /// This VM's speed changes within seconds, so ours and the peer's figures are only
    /// comparable when taken within a fraction of a second of each other. Each line read from
    /// standard input, `<first> <count>`, runs the timed loop of ``run(_:)`` over `count`
    /// events from event `first` on (wrapping around the corpus) and answers
    /// `<nanoseconds> <workouts typed> <failures>`; the end of input ends the process.
    static func serve(_ arguments: [String]) throws {
        let corpusURL = URL(fileURLWithPath: arguments.first ?? "Benchmarks/.out/corpus.ndjson")
        guard FileManager.default.fileExists(atPath: corpusURL.path) else {
            throw BenchmarkError("no corpus at \(corpusURL.path); `ChatBenchmarks decode \(corpusURL.path)` writes it")
        }
        let lines = try events(at: corpusURL)
        guard !lines.isEmpty else { throw BenchmarkError("\(corpusURL.path) holds no events; run `ChatBenchmarks decode` to write it") }
        // Written straight to the pipe: `print` would hold the line in stdout's buffer.
        answer("ready \(lines.count)")
        while let request = readLine() {
            let fields = request.split(separator: " ").compactMap { Int($0) }
            guard fields.count == 2, fields[0] >= 0, fields[1] > 0 else {
                throw BenchmarkError("expected \"<first> <count>\" (two whole numbers, count above 0), got \"\(request)\"")
            }
            // The chunk as one contiguous slice, as the peer iterates over a list.
            let chunk = (0..<fields[1]).map { lines[(fields[0] + $0) % lines.count] }
            let (tally, elapsed) = try runOnce(chunk[...])
            answer("\(Int64(elapsed.seconds * 1e9)) \(tally.workouts) \(tally.failures)")
        }
    }

    private static func answer(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
