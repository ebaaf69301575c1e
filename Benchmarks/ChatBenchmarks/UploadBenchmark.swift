import ChatClient
import ChatModels
import Foundation
import Synchronization

/// Uploads one file with ChatClient (libcurl, streamed from disk) to a running server and prints
/// MB/s and how much the process's peak RSS grew during the upload.
/// `ChatBenchmarks upload <base-url> <api-key> <api-secret> <file>`
enum UploadBenchmark {
    static func run(_ arguments: [String]) async throws {
        guard arguments.count == 4, let baseURL = URL(string: arguments[0]) else {
            throw BenchmarkError("usage: ChatBenchmarks upload <base-url> <api-key> <api-secret> <file>")
        }
        let file = URL(fileURLWithPath: arguments[3])
        let size = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value ?? 0
        let client = ChatClient(
            configuration: ChatClientConfiguration(
                apiKey: arguments[1], baseURL: baseURL, credentials: .apiSecret(arguments[2]), userId: "bench-swift",
                maximumUploadSize: .max))
        try await client.upsertUsers([User(id: "bench-swift", name: "Benchmark")])
        try await client.queryChannel("messaging:bench", members: ["bench-swift"], createdBy: "bench-swift", messageLimit: 0)
        _ = try await client.appSettings()
        let before = ResourceUsage.current()
        let lastProgress = Mutex(0.0)
        let clock = ContinuousClock()
        let start = clock.now
        let uploaded = try await client.uploadAttachment(
            localFileURL: file, type: .file, to: "messaging:bench", progress: { fraction in lastProgress.withLock { $0 = fraction } })
        let seconds = (clock.now - start).seconds
        let after = ResourceUsage.current()
        let growth = after.peakResidentBytes - before.residentBytes
        print(
            String(
                format: "ChatClient upload: %.1f MiB in %.2f s = %.1f MB/s; RSS before %.1f MiB, peak %.1f MiB (growth %.1f MiB); progress ended at %.3f",
                mebibytes(size), seconds, Double(size) / seconds / 1_000_000, mebibytes(before.residentBytes),
                mebibytes(after.peakResidentBytes), mebibytes(growth), lastProgress.withLock { $0 }))
        print("uploaded to \(uploaded.fileURL.path)")
        print(String(format: "RESULT upload swift bytes=%lld seconds=%.3f mb_per_s=%.1f rss_growth_mib=%.1f", size, seconds, Double(size) / seconds / 1_000_000, mebibytes(growth)))
    }
}

/// A benchmark that cannot run as asked.
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
