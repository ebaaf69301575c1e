import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatLocking
import ChatModels
import Foundation
import Testing

/// Hands `user`'s connection again the event of `cid`'s log (the last minute) that `matches`,
/// as a reconnect's `/sync` would.
func redeliver(
    in cid: ChannelId, on server: TestChatServer, to user: String, sourceLocation: SourceLocation = #_sourceLocation,
    where matches: (Event) -> Bool
) async throws {
    let events = try await server.client(as: "admin").sync([cid], since: RFC3339.string(from: Date().addingTimeInterval(-60)))
    let found = events.first(where: matches)
    let event = try #require(found, sourceLocation: sourceLocation)
    #expect(await server.server.sendRawFrame(String(decoding: event.rawData, as: UTF8.self), toUser: user) == 1, sourceLocation: sourceLocation)
}

extension AttachmentType {
    static let poll = Self(rawValue: "poll")
}

/// A custom payload of the tests' own: a poll.
struct PollPayload: AttachmentPayload {
    static let type: AttachmentType = .poll

    var question: String
    var options: [String]
    var votes: Int?
}

/// What the handlers saw, in the order they saw it; safe to write from any handler.
final class Recorder: Sendable {
    private let entries = Locked<[String]>([])

    func record(_ entry: String) { entries.withLock { $0.append(entry) } }

    var all: [String] { entries.withLock { $0 } }

    func count(_ entry: String) -> Int { all.filter { $0 == entry }.count }

    /// Waits until `condition` holds for the entries; fails the test with what was recorded
    /// after `timeout`.
    func wait(
        timeout: Duration = .seconds(10), sourceLocation: SourceLocation = #_sourceLocation, until condition: ([String]) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition(all) {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out; recorded so far: \(all)", sourceLocation: sourceLocation)
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// The most handlers seen running at the same time.
final class ConcurrencyGauge: Sendable {
    private let counts = Locked((now: 0, peak: 0))

    func measure(_ body: () async throws -> Void) async rethrows {
        counts.withLock { counts in
            counts.now += 1
            counts.peak = max(counts.peak, counts.now)
        }
        defer { counts.withLock { $0.now -= 1 } }
        try await body()
    }

    var peak: Int { counts.withLock { $0.peak } }
}
