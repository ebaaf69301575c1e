import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation

/// What `MediaProbe` costs on a long voice recording: a WAV file (`minutes` of 48 kHz 16-bit
/// stereo) probed for its length and waveform, best of `passes`, in MB/s, with the process's
/// peak memory before and after (the file is read 1 MB at a time). The file is left at `path`
/// for the peer (`Benchmarks/peers/waveform_peer.py`: Python's `wave` and C `audioop.max`).
/// `ChatBenchmarks probe <path> [minutes] [passes]`
enum ProbeBenchmark {
    static func run(_ arguments: [String]) throws {
        guard let path = arguments.first else { throw BenchmarkError("usage: ChatBenchmarks probe <wav path> [minutes] [passes]") }
        let minutes = arguments.count > 1 ? Double(arguments[1]) ?? 10 : 10
        let passes = arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5
        let url = URL(fileURLWithPath: path)
        try MediaFixtures.wave(seconds: minutes * 60, sampleRate: 48_000, channels: 2) { time in 0.2 + 0.6 * abs(sin(time)) }.write(to: url)
        let size = Double((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
        let before = ResourceUsage.current()
        var best = Double.infinity
        var info = MediaInfo.unknown
        for _ in 0..<passes {
            let start = ContinuousClock.now
            info = MediaProbe.probe(url, waveform: true)
            best = min(best, (ContinuousClock.now - start).seconds)
        }
        let after = ResourceUsage.current()
        guard let duration = info.duration, info.waveform?.count == MediaProbe.waveformLength else {
            throw BenchmarkError("the probe found no waveform in \(path)")
        }
        print(
            String(
                format: "MediaProbe on a %.0f MB WAV (%.0f s): length and waveform in %.3f s (%.0f MB/s); peak memory %.1f MiB before, %.1f MiB after",
                size / 1e6, duration, best, size / 1e6 / best, mebibytes(before.peakResidentBytes), mebibytes(after.peakResidentBytes)))
        print(String(format: "RESULT probe swift_mb_per_s=%.0f", size / 1e6 / best))
    }
}
