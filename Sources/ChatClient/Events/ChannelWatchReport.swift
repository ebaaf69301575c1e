import ChatModels
import Foundation

/// What an ``EventConnection`` did to watch its channels when it connected or reconnected:
/// how many it watched, joined, created and synced, in how many HTTP calls and how long.
public struct ChannelWatchReport: Sendable, Equatable, CustomStringConvertible {
    /// Whether it was a reconnect (else the first connection).
    public var isReconnect: Bool
    /// The channels watched once done.
    public var watched = 0
    /// The channels the user was made a member of.
    public var joined = 0
    /// The channels created because they did not exist.
    public var created = 0
    /// The channels whose gap `/sync` healed (none when there was no gap to heal).
    public var synced = 0
    /// The events `/sync` brought back.
    public var syncedEvents = 0
    /// The HTTP calls it took (Query Channels pages, creations, joins, `/sync` calls).
    public var calls = 0
    /// From connected to every channel watched and synced.
    public var duration = Duration.zero
    /// The channels the service refused (they are not watched; the others are).
    public var failures: [ChannelFailure] = []

    /// An empty report.
    public init(isReconnect: Bool) {
        self.isReconnect = isReconnect
    }

    /// Adds what a paged join or watch did.
    mutating func add(_ pages: ChannelPagesReport) {
        joined += pages.joined.count
        created += pages.created.count
        calls += pages.calls
        failures += pages.failures
    }

    /// "watched 300 channels (joined 2, created 1), synced 300, in 14 calls, 0.41 s".
    public var description: String {
        var text = "watched \(watched) channel\(watched == 1 ? "" : "s") (joined \(joined), created \(created))"
        if synced > 0 { text += ", synced \(synced) (\(syncedEvents) event\(syncedEvents == 1 ? "" : "s"))" }
        text += ", in \(calls) call\(calls == 1 ? "" : "s"), \(Self.seconds(duration))"
        if !failures.isEmpty { text += "; refused: \(failures.map(\.cid.rawValue).joined(separator: ", "))" }
        return text
    }

    private static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return String(format: "%.2f s", Double(milliseconds) / 1000)
    }
}
