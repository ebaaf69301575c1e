import ChatLocking
import ChatModels
import Foundation
import Logging

/// Watching many channels with few calls: on each (re)connection the channels are watched a page
/// of ``ChatClient/channelPageSize`` per Query Channels call (the member channels' pages watch
/// those as they list them), and the gap is healed with `/sync` over 255 channels per call.
extension EventConnection {
    /// What the last connection or reconnection did to watch the channels; nil before the first.
    public var lastWatchReport: ChannelWatchReport? { shared.withLock { $0.lastWatchReport } }

    /// The channels the service refused to let the user join or watch (a 403 for a channel it
    /// may not join), each once; they are not watched, and the others are.
    public var refusedChannels: [ChannelFailure] { shared.withLock { $0.refusedChannels } }

    /// Watches `cids` from now on, in pages when connected (getting or creating those the
    /// pages do not return), and after every reconnect. Channels the service refuses are left
    /// out and listed in ``refusedChannels``.
    public func watch(_ cids: [ChannelId]) async throws {
        let added = shared.withLock { shared -> [ChannelId] in
            var known = Set(shared.watched)
            let added = cids.filter { known.insert($0).inserted }
            shared.watched += added
            return added
        }
        countWatched()
        guard !added.isEmpty, let connectionId else { return }
        do {
            let pages = try await client.watchOrCreateChannels(added, creator: user.id, connectionId: connectionId)
            refuse(pages.failures)
        } catch where self.connectionId != connectionId {
            logger.debug("\(added.count) channels will be watched after the reconnect: \(error)")
        }
    }

    /// Whether `event` is the addition of the user to a channel this connection joined itself
    /// (which then no longer counts as such): the user's own joining is not news to it, as it
    /// was not when it joined before connecting.
    func isOwnJoining(_ event: Event) -> Bool {
        guard let cid = event.cid else { return false }
        return shared.withLock { shared in
            if event.isRemoval(of: user.id) { shared.joinedItself.remove(cid) }
            return event.isAddition(of: user.id) && shared.joinedItself.remove(cid) != nil
        }
    }

    /// Records how many channels are watched (the `chatbotkit_watched_channels` gauge).
    func countWatched() {
        metrics.watching(shared.withLock { $0.watched.count })
    }

    /// Stops watching the channels the service refused, and says which and why.
    func refuse(_ failures: [ChannelFailure]) {
        guard !failures.isEmpty else { return }
        forget(Set(failures.map(\.cid)))
        shared.withLock { shared in
            let known = Set(shared.refusedChannels.map(\.cid))
            shared.refusedChannels += failures.filter { !known.contains($0.cid) }
        }
        for failure in failures {
            logger.error("Channel \(failure.cid) is not watched: \(failure.message)", metadata: ["cid": "\(failure.cid)"])
        }
    }

    /// How many channels are watched, and their gap healed, before the next are: 8 pages of
    /// Query Channels and one `/sync` (of at most 255 channels).
    static let readyBatch = 8 * ChatClient.channelPageSize

    /// Watches every channel on a new connection, ``readyBatch`` at a time, each batch ready
    /// (its gap healed from `since`, if given, and its held events let through) before the next
    /// is watched: the member channels' pages first (with `watchesMemberChannels`), then the
    /// other channels asked for. On the first connection a missing channel is created (and,
    /// with `joinsWatchedChannels`, the user made a member where it is not); on a reconnect one
    /// that is gone is forgotten, and its gap still synced, to bring its deletion.
    func watchAll(connectionId: String, isReconnect: Bool, healingFrom since: Date?, report: inout ChannelWatchReport) async throws {
        var covered: Set<ChannelId> = []
        if configuration.watchesMemberChannels {
            // Each batch is ready as it is listed.
            let (members, calls) = try await followMemberChannels(watch: connectionId) { batch in
                try await ready(batch, vanished: [], healingFrom: since, report: &report)
            }
            covered = members
            report.calls += calls
        }
        let rest = watchedChannels.filter { !covered.contains($0) }
        var gone: Set<ChannelId> = []
        for start in stride(from: 0, to: rest.count, by: Self.readyBatch) {
            let batch = Array(rest[start..<min(rest.count, start + Self.readyBatch)])
            let pages: ChannelPagesReport
            if isReconnect {
                pages = try await client.watchChannels(batch, connectionId: connectionId)
            } else {
                pages =
                    configuration.joinsWatchedChannels
                    ? try await client.joinChannels(batch, as: user.id, watch: connectionId)
                    : try await client.watchOrCreateChannels(batch, creator: user.id, connectionId: connectionId)
                // Before their events are let through, so that the user's own additions are known.
                if configuration.joinsWatchedChannels {
                    shared.withLock { $0.joinedItself.formUnion(pages.joined + pages.created) }
                }
            }
            // Only a reconnect's pages miss channels: they create none.
            let vanished = Set(pages.missing)
            if !vanished.isEmpty { forget(vanished) }
            gone.formUnion(vanished)
            report.add(pages)
            refuse(pages.failures)
            try await ready(batch.filter { !vanished.contains($0) }, vanished: vanished, healingFrom: since, report: &report)
        }
        if !gone.isEmpty {
            logger.info("Channels gone while disconnected are no longer watched: \(gone.map(\.rawValue).sorted().joined(separator: ", "))")
        }
        countWatched()
        report.watched = watchedChannels.count
    }

    /// Lets the events of `cids` (watched now) through, after healing their gap from `since`.
    private func ready(_ cids: [ChannelId], vanished: Set<ChannelId>, healingFrom since: Date?, report: inout ChannelWatchReport) async throws {
        guard let since else { return await release(cids) }
        let (events, calls) = try await heal(cids, vanished: vanished, since: since)
        report.synced += cids.count + vanished.count
        report.syncedEvents += events
        report.calls += calls
    }
}
