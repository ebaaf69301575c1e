import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Foundation
import Synchronization

/// Events per second received over one WebSocket: the dev server (in this process, on a
/// loopback port) pushes corpus `message.new` frames of about 2.6 KB to one EventConnection
/// (libwebsockets), which decodes and delivers them. At most `window` frames are in flight so
/// the server's per-connection queue never overflows.
/// `ChatBenchmarks events [count]`
enum EventsBenchmark {
    static func run(_ arguments: [String]) async throws {
        let count = arguments.first.flatMap(Int.init) ?? 50_000
        let window = 2_000
        var random = SplitMix64(seed: 7)
        let frames = (0..<count).map { CorpusWriter.event(index: $0, random: &random) }
        let bytes = frames.reduce(0) { $0 + $1.utf8.count }
        try await TestChatServer.withServer { server in
            let client = server.client(as: "bench")
            let connection = EventConnection(
                client: client, user: User(id: "bench"),
                configuration: EventConnection.Configuration(bufferCapacity: 4096))
            let runner = Task { try await connection.run() }
            defer { runner.cancel() }
            await connection.waitUntilConnected()
            let received = Atomic<Int>(0)
            let reader = Task {
                for await event in connection.events where event.type == .messageNew {
                    if received.add(1, ordering: .relaxed).newValue == count { break }
                }
            }
            let clock = ContinuousClock()
            let start = clock.now
            var sent = 0
            while sent < count {
                while sent - received.load(ordering: .relaxed) >= window { await Task.yield() }
                let delivered = await server.server.sendRawFrame(frames[sent], toUser: "bench")
                guard delivered == 1 else { throw BenchmarkError("the benchmark connection is gone after \(sent) frames") }
                sent += 1
            }
            await reader.value
            let seconds = (clock.now - start).seconds
            print(
                String(
                    format: "One WebSocket (libwebsockets + decode): %d message.new events in %.2f s = %.0f events/s, %.1f MB/s",
                    count, seconds, Double(count) / seconds, Double(bytes) / seconds / 1_000_000))
            print(String(format: "RESULT events swift_events_per_s=%.0f", Double(count) / seconds))
        }
    }
}
