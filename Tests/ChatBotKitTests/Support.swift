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
