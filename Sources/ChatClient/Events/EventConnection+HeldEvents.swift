import ChatLocking
import ChatModels
import Foundation

/// A new connection watches its channels a batch at a time, and heals each batch's gap before
/// the next. Its events are read from the start meanwhile, so that the channels ready first are
/// handled first: a bot in 10,000 channels answers in its first while it still watches its
/// last. A live event of a channel not ready yet waits, and is passed on after the channel's
/// synced events, in the order it came; so each channel's events keep their order.
extension EventConnection {
    /// Holds back the live events of `cids` until ``release(_:)``; nothing else waits.
    func holdBack(_ cids: [ChannelId]) {
        shared.withLock { shared in
            shared.notReady = Set(cids)
            shared.heldBack = [:]
        }
    }

    /// Whether `event` waits for its channel to be ready (it is kept until then).
    func isHeldBack(_ event: Event) -> Bool {
        guard let cid = event.cid else { return false }
        return shared.withLock { shared in
            guard shared.notReady.contains(cid) else { return false }
            shared.heldBack[cid, default: []].append(event)
            return true
        }
    }

    /// Passes on what was held back for `cids`, then lets their events through as they come.
    /// Events that come while the held ones are passed on are held too, and follow them.
    func release(_ cids: some Collection<ChannelId>) async {
        let released = Set(cids)
        while let batch = shared.withLock({ shared -> [Event]? in
            var batch: [Event] = []
            for cid in released { batch += shared.heldBack.removeValue(forKey: cid) ?? [] }
            guard batch.isEmpty else { return batch }
            shared.notReady.subtract(released)
            // Every gap healed: a reconnect from here on syncs from the latest event.
            if shared.notReady.isEmpty, let latest = shared.latestWhileHealing {
                if shared.lastEventAt.map({ latest > $0 }) ?? true { shared.lastEventAt = latest }
                shared.latestWhileHealing = nil
            }
            return nil
        }) {
            for event in batch { await deliver(event) }
        }
    }

    /// Records the time of an event passed on: how far the channels were followed, from where
    /// a reconnect syncs. While some channels' gaps are not healed it is kept aside, so that a
    /// connection lost meanwhile still syncs them from before their gap.
    func noteDelivered(at createdAt: Date) {
        shared.withLock { shared in
            if shared.notReady.isEmpty {
                if shared.lastEventAt.map({ createdAt > $0 }) ?? true { shared.lastEventAt = createdAt }
            } else if shared.latestWhileHealing.map({ createdAt > $0 }) ?? true {
                shared.latestWhileHealing = createdAt
            }
        }
    }
}
