import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation

/// What `DeduplicatingCDNStorage` saves and costs, next to the plain `StreamCDNStorage` in the
/// same run, on the dev server (in this process, on a loopback port):
/// - the same file sent `sends` times: the plain storage uploads it every time; the
///   deduplicating one uploads it once, then hashes it and checks the link with a HEAD;
/// - `sends` different files: both upload every one; the deduplicating one also hashes each,
///   which is its cost when nothing repeats.
/// Rounds alternate the two storages, as this VM's speed drifts within minutes.
/// `ChatBenchmarks reuse [MiB] [sends] [rounds]`
enum ReuseBenchmark {
    static func run(_ arguments: [String]) async throws {
        let mebibytes = arguments.first.flatMap(Int.init) ?? 32
        let sends = arguments.dropFirst().first.flatMap(Int.init) ?? 5
        let rounds = arguments.dropFirst(2).first.flatMap(Int.init) ?? 3
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chatbotkit-reuse-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = try (0..<sends).map { index in try randomFile(folder.appendingPathComponent("report-\(index).bin"), mebibytes: mebibytes, seed: UInt64(index)) }
        let bytes = Double(mebibytes << 20)

        let clock = ContinuousClock()
        let hashStart = clock.now
        _ = try FileDigest.sha256(of: files[0])
        let hashSeconds = (clock.now - hashStart).seconds
        print(String(format: "SHA-256 of %d MiB: %.1f ms (%.0f MB/s)", mebibytes, hashSeconds * 1000, bytes / hashSeconds / 1_000_000))

        try await TestChatServer.withServer { server in
            for round in 1...rounds {
                // Fresh storages each round, so the deduplicating one starts with nothing kept.
                let plain = server.client(as: "bench", cdnStorage: StreamCDNStorage())
                let reusing = server.client(as: "bench", cdnStorage: DeduplicatingCDNStorage())
                try await plain.queryChannel("messaging:bench", members: ["bench"], messageLimit: 0)
                let same = Array(repeating: files[0], count: sends)
                let plainSame = try await uploads(same, through: plain)
                let reusingSame = try await uploads(same, through: reusing)
                let plainDistinct = try await uploads(files, through: plain)
                let reusingDistinct = try await uploads(files, through: reusing)
                let reusedMean = reusingSame.dropFirst().reduce(0, +) / Double(sends - 1)
                print(
                    String(
                        format:
                            "round %d, %d MiB x %d: same file: plain %.1f ms per send; reusing: first %.1f ms, then %.1f ms (%.0fx faster than plain); "
                            + "different files: plain %.1f ms, reusing %.1f ms (%+.1f%%)",
                        round, mebibytes, sends, mean(plainSame), reusingSame[0], reusedMean, mean(plainSame) / reusedMean,
                        mean(plainDistinct), mean(reusingDistinct), (mean(reusingDistinct) / mean(plainDistinct) - 1) * 100))
                print(
                    String(
                        format: "RESULT reuse round=%d plain_ms=%.2f reused_ms=%.2f first_ms=%.2f plain_distinct_ms=%.2f reusing_distinct_ms=%.2f",
                        round, mean(plainSame), reusedMean, reusingSame[0], mean(plainDistinct), mean(reusingDistinct)))
            }
        }
    }

    /// Each upload's time in milliseconds.
    static func uploads(_ files: [URL], through client: ChatClient) async throws -> [Double] {
        let clock = ContinuousClock()
        var times: [Double] = []
        for file in files {
            let start = clock.now
            _ = try await client.uploadAttachment(localFileURL: file, type: .file, to: "messaging:bench")
            times.append((clock.now - start).seconds * 1000)
        }
        return times
    }

    static func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(values.count) }

    static func randomFile(_ url: URL, mebibytes: Int, seed: UInt64) throws -> URL {
        var random = SplitMix64(seed: seed)
        var data = Data(count: mebibytes << 20)
        data.withUnsafeMutableBytes { buffer in
            let words = buffer.bindMemory(to: UInt64.self)
            for index in words.indices { words[index] = random.next() }
        }
        try data.write(to: url)
        return url
    }
}
