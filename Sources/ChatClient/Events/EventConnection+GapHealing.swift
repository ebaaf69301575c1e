import ChatLocking
import ChatModels
import ChatTransport
import Foundation
import Logging

/// Healing the gap a reconnect leaves: `/sync` from the last event seen, and the channels that
/// vanished meanwhile, a batch of channels at a time as they are watched (see
/// `EventConnection+HeldEvents.swift` for the live events that wait meanwhile).
extension EventConnection {
    /// Stops watching `cids` (after their deletion).
    func forget(_ cids: Set<ChannelId>) {
        shared.withLock { $0.watched.removeAll { cids.contains($0) } }
        countWatched()
    }

    /// Heals the gap of `cids` on a new connection, once they are watched: their events since
    /// `since` (`/sync`), a `channel.deleted` for each of `vanished` whose deletion `/sync` did
    /// not bring back (see ``deletion(of:)``), then their live events held back meanwhile.
    /// Returns how many events `/sync` brought and in how many calls.
    func heal(_ cids: [ChannelId], vanished: Set<ChannelId>, since: Date) async throws -> (events: Int, calls: Int) {
        let all = cids + vanished.sorted { $0.rawValue < $1.rawValue }
        guard !all.isEmpty else { return (0, 0) }
        var calls = 0
        let events = try await syncEvents(all, since: since, calls: &calls)
        logger.debug("Synced \(events.count) events of \(all.count) channels since \(RFC3339.string(from: since))")
        metrics.synced(events.count)
        for event in events { await deliver(event) }
        let announced = Set(events.filter { $0.type == .channelDeleted }.compactMap(\.cid))
        for cid in vanished.subtracting(announced).sorted(by: { $0.rawValue < $1.rawValue }) {
            if let deletion = deletion(of: cid) { await deliver(deletion) }
        }
        await release(all)
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
