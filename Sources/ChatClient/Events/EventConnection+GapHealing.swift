import ChatLocking
import ChatModels
import ChatTransport
import Foundation
import Logging

/// Healing the gap a reconnect leaves: `/sync` from the last event seen, and the channels that
/// vanished meanwhile.
extension EventConnection {
    /// Stops watching `cids` (after their deletion).
    func forget(_ cids: Set<ChannelId>) {
        shared.withLock { $0.watched.removeAll { cids.contains($0) } }
        countWatched()
    }

    /// Delivers what happened while disconnected: `/sync` from the last event (before the
    /// first one, from where ``catchUp(since:)`` said). A channel that vanished meanwhile gets a
    /// `channel.deleted` of its own when `/sync` did not bring its deletion back (see
    /// ``deletion(of:)``). Returns how many events it delivered and in how many calls.
    func healGap(_ watched: [ChannelId], vanished: Set<ChannelId>) async throws -> (events: Int, calls: Int) {
        guard !watched.isEmpty else { return (0, 0) }
        let since = shared.withLock { $0.lastEventAt ?? $0.catchUpSince ?? $0.firstConnectedAt } ?? Date()
        var calls = 0
        let events = try await syncEvents(watched, since: since, calls: &calls)
        logger.debug("Synced \(events.count) events since \(RFC3339.string(from: since))")
        metrics.synced(events.count)
        for event in events { await deliver(event) }
        let announced = Set(events.filter { $0.type == .channelDeleted }.compactMap(\.cid))
        for cid in vanished.subtracting(announced).sorted(by: { $0.rawValue < $1.rawValue }) {
            if let deletion = deletion(of: cid) { await deliver(deletion) }
        }
        return (events.count, calls)
    }

    /// The events of `cids` since `date`, in the order they happened. The server refuses (HTTP
    /// 400) a `/sync` with more events than it returns at once (2,000 on the hosted service),
    /// and a connection that asked again after every refusal would never come back: then each
    /// channel is synced on its own, and one with too many events alone is skipped with an
    /// error logged and counted, as its gap cannot be healed this way. (Also what a scaled-out
    /// bot syncs a channel it takes over with.)
    package func syncEvents(_ cids: [ChannelId], since date: Date) async throws -> [Event] {
        var calls = 0
        return try await syncEvents(cids, since: date, calls: &calls)
    }

    /// ``syncEvents(_:since:)``, adding the calls it made to `calls`.
    func syncEvents(_ cids: [ChannelId], since date: Date, calls: inout Int) async throws -> [Event] {
        // One microsecond earlier: the server compares strictly, and duplicates are filtered anyway.
        let since = RFC3339.string(from: date.addingTimeInterval(-0.000_001))
        let batch = 255
        if cids.count > 1 {
            calls += (cids.count + batch - 1) / batch
            do {
                return try await client.sync(cids, since: since)
            } catch let error as ChatClientError where error.httpStatus == 400 {
                // Channel by channel, below.
            }
        }
        var events: [Event] = []
        for cid in cids {
            calls += 1
            do {
                events += try await client.sync([cid], since: since)
            } catch let error as ChatClientError where error.httpStatus == 400 {
                logger.error(
                    "What happened in \(cid) since \(since) is not delivered: the server does not sync it (\(error.message))",
                    metadata: ["cid": "\(cid)"])
                metrics.unsyncedChannel()
            }
        }
        // Channel by channel, then in the order they happened, as one `/sync` answers.
        return events.enumerated().sorted { lhs, rhs in
            let (left, right) = (lhs.element.createdAt ?? .distantPast, rhs.element.createdAt ?? .distantPast)
            return left == right ? lhs.offset < rhs.offset : left < right
        }.map(\.element)
    }

    /// The `channel.deleted` a vanished channel is announced with when the server's `/sync`
    /// leaves deleted channels out: no acting user, and now as its time, since the server no
    /// longer tells when. Only with server credentials, for which a channel that cannot be
    /// found does not exist; a user token may just have lost access (nil).
    func deletion(of cid: ChannelId) -> Event? {
        guard case .apiSecret = client.configuration.credentials else {
            logger.info("Channel \(cid) can no longer be read; it may have been deleted or this user removed from it")
            return nil
        }
        let now = Date()
        return Event(type: .channelDeleted, createdAt: now, cid: cid, channel: Channel(cid: cid, deletedAt: now))
    }
}
