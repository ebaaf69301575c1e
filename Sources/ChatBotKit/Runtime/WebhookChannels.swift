import ChatLocking
import ChatModels

/// The channels a bot taking its events by webhook follows: the webhook brings every channel's
/// events, and it keeps those of its channels and memberships, following what it is added to
/// and removed from (and deleted channels).
final class WebhookChannels: Sendable {
    private let channels = Locked<Set<ChannelId>>([])

    /// None yet.
    init() {}

    /// The channels, sorted.
    var sorted: [ChannelId] { channels.withLock { $0 }.sorted { $0.rawValue < $1.rawValue } }

    /// Follows exactly `cids` from now on.
    func replace(with cids: some Sequence<ChannelId>) {
        channels.withLock { $0 = Set(cids) }
    }

    /// Follows `cid` from now on.
    func follow(_ cid: ChannelId) {
        channels.withLock { _ = $0.insert(cid) }
    }

    /// No longer follows `cid`.
    func leave(_ cid: ChannelId) {
        channels.withLock { _ = $0.remove(cid) }
    }

    /// Whether an event the webhook brought is one of the bot's channels (`botUser` its user),
    /// keeping track of what it is added to and removed from (and of deleted channels).
    func follows(_ event: Event, botUser: String) -> Bool {
        guard let cid = event.cid else { return false }
        if event.isAddition(of: botUser) {
            channels.withLock { _ = $0.insert(cid) }
            return true
        }
        return channels.withLock { channels in
            guard channels.contains(cid) else { return false }
            if event.isRemoval(of: botUser) || event.type == .channelDeleted { channels.remove(cid) }
            return true
        }
    }
}
