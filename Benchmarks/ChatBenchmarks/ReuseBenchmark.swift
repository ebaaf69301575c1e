import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation

/// What `DeduplicatingCDNStorage` saves and costs, next to the plain `StreamCDNStorage` in the
/// same run, on the dev server (in this process, on a loopback port), `sends` uploads per case:
/// - `static`: one file from disk, unchanged (a help PDF, a logo): read once, then only checked;
/// - `copies`: the same content and name written to a new file each time (an export made
///   again): hashed each time, never uploaded (the `static` case uploaded it);
/// - `distinct`: files that never repeat: hashed and uploaded every time, the cost when
///   nothing is saved.
/// Which storage goes first alternates by round: the server's writes slow down as the page
/// cache fills, and whichever went second would pay for it every round.
/// `ChatBenchmarks reuse [MiB] [sends] [rounds]`
enum ReuseBenchmark {
    static func run(_ arguments: [String]) async throws {
        let mebibytes = arguments.first.flatMap(Int.init) ?? 32
        let sends = max(2, arguments.dropFirst().first.flatMap(Int.init) ?? 5)
        let rounds = arguments.dropFirst(2).first.flatMap(Int.init) ?? 4
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chatbotkit-reuse-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = try randomFile(folder.appendingPathComponent("report.bin"), mebibytes: mebibytes, seed: 0)
        let distinct = try (1...sends).map { try randomFile(folder.appendingPathComponent("other-\($0).bin"), mebibytes: mebibytes, seed: UInt64($0)) }
        // Settled, as a file shipped with a bot is: changed long before it is sent.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: original.path)
        let copies = try (0..<sends).map { index in
            let copy = folder.appendingPathComponent("copy-\(index)").appendingPathComponent("report.bin")
            try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: original, to: copy)
            return copy
        }

        let clock = ContinuousClock()
        let hashStart = clock.now
        _ = try FileDigest.sha256(of: original)
        let hashSeconds = (clock.now - hashStart).seconds
        print(String(format: "SHA-256 of %d MiB: %.1f ms (%.0f MB/s)", mebibytes, hashSeconds * 1000, Double(mebibytes << 20) / hashSeconds / 1e6))

        try await TestChatServer.withServer { server in
            for round in 1...rounds {
                // Fresh storages each round, so the deduplicating one starts with nothing kept.
                let plain = server.client(as: "bench", cdnStorage: StreamCDNStorage())
                let reusing = server.client(as: "bench", cdnStorage: DeduplicatingCDNStorage())
                try await plain.queryChannel("messaging:bench", members: ["bench"], messageLimit: 0)
                let cases = [("static", Array(repeating: original, count: sends)), ("copies", copies), ("distinct", distinct)]
                let plainFirst = round % 2 == 1
                var results: [String: (plain: [Double], reusing: [Double])] = [:]
                for (name, files) in cases {
                    let first = try await uploads(files, through: plainFirst ? plain : reusing)
                    let second = try await uploads(files, through: plainFirst ? reusing : plain)
                    results[name] = plainFirst ? (first, second) : (second, first)
                }
                var line = "round \(round) (\(plainFirst ? "plain" : "reusing") first), \(mebibytes) MiB x \(sends), ms per send:"
                var result = "RESULT reuse round=\(round)"
                for (name, _) in cases.dropLast() {
                    let (plainTimes, reusingTimes) = results[name]!
                    let later = mean(Array(reusingTimes.dropFirst()))
                    line += " \(name) plain " + String(format: "%.1f, reusing first %.1f then %.1f (%.1fx);", mean(plainTimes), reusingTimes[0], later, mean(plainTimes) / later)
                    result += " \(name)_plain_ms=" + String(format: "%.2f", mean(plainTimes)) + " \(name)_first_ms=" + String(format: "%.2f", reusingTimes[0])
                        + " \(name)_later_ms=" + String(format: "%.2f", later)
                }
                let (plainDistinct, reusingDistinct) = results["distinct"]!
                line += " distinct plain " + String(format: "%.1f, reusing %.1f (%+.0f%%)", mean(plainDistinct), mean(reusingDistinct), (mean(reusingDistinct) / mean(plainDistinct) - 1) * 100)
                result += " distinct_plain_ms=" + String(format: "%.2f", mean(plainDistinct)) + " distinct_reusing_ms=" + String(format: "%.2f", mean(reusingDistinct))
                print(line)
                print(result)
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

    static func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(max(1, values.count)) }

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
