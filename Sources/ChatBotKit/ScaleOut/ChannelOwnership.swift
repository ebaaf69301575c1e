import ChatModels
import Foundation

/// Which channels this node of a scaled-out bot handles, and how far it handled each: the
/// node-side view of its leases (``BotService/ScaleOut``).
struct ChannelOwnership: Sendable {
    /// Where one channel stands for this node.
    enum Standing: Sendable {
        /// Its lease is this node's until `validUntil` (by this node's clock, counted from when
        /// it asked): its events are handled.
        case held(validUntil: ContinuousClock.Instant)
        /// Its lease was just taken: live events wait in `buffered` while the channel is synced
        /// from where its last holder left it.
        case catchingUp(buffered: [Event], validUntil: ContinuousClock.Instant)
        /// Its lease is being given up: new events are left to the next holder, which syncs
        /// from ``HandledProgress/handledThrough``, while queued deliveries finish.
        case releasing
        /// Another node handles it (or no one yet): its events are skipped. `skippedSince` is
        /// the earliest skipped, where this node syncs from if it takes the channel over from
        /// no one.
        case elsewhere(skippedSince: Date?)
    }

    /// What to do with an event of a channel.
    enum Route: Equatable {
        /// Handle it.
        case handle
        /// Keep it for after the channel's catching up (it is buffered).
        case hold
        /// Leave it to another node; `isNewChannel` when the channel was not known, so the
        /// leases are looked at without waiting for the next round.
        case skip(isNewChannel: Bool)
    }

    private(set) var channels: [ChannelId: Standing] = [:]
    /// How far each channel this node holds, takes or gives up was handled. Kept apart from
    /// ``channels`` and changed in place: taken out of an enum payload and put back, every
    /// change copied the channel's lists, once per event.
    private var progress: [ChannelId: HandledProgress] = [:]

    /// Decides for one event of `cid`. A lease that ran out by this node's clock (it could not
    /// be renewed) is treated as lost.
    mutating func route(_ event: Event, in cid: ChannelId, now: ContinuousClock.Instant) -> Route {
        let eventAt = event.createdAt
        switch channels[cid] {
        case .held(let validUntil):
            if now < validUntil { return .handle }
            channels[cid] = .elsewhere(skippedSince: progress.removeValue(forKey: cid)?.handledThrough ?? eventAt)
            return .skip(isNewChannel: false)
        case .catchingUp:
            // Taken out first, so that the buffer is appended to in place.
            if case .catchingUp(var buffered, let validUntil) = channels.removeValue(forKey: cid) {
                buffered.append(event)
                channels[cid] = .catchingUp(buffered: buffered, validUntil: validUntil)
            }
            return .hold
        case .releasing:
            return .skip(isNewChannel: false)
        case .elsewhere(let skippedSince):
            if let eventAt, skippedSince.map({ eventAt < $0 }) ?? true { channels[cid] = .elsewhere(skippedSince: eventAt) }
            return .skip(isNewChannel: false)
        case nil:
            channels[cid] = .elsewhere(skippedSince: eventAt)
            return .skip(isNewChannel: true)
        }
    }

    /// Follows how far a held channel was handled: an event seen, and the delivery it became.
    mutating func track(_ cid: ChannelId, eventAt: Date?, delivery key: String?) {
        guard let eventAt else { return }
        if let key { progress[cid]?.accepted(key, eventAt: eventAt) } else { progress[cid]?.saw(eventAt: eventAt) }
    }

    /// A delivery of `cid` was handled to the end.
    mutating func finished(_ key: String, in cid: ChannelId) {
        progress[cid]?.finished(key)
    }

    /// The lease of `cid` was taken, with `handOff` from its last holder: live events wait
    /// until ``finishCatchingUp(_:)``. Returns where to sync from: the hand-off's time less the
    /// reordering margin, else the earliest event this node skipped; nil when there is nothing
    /// to sync.
    mutating func beginCatchingUp(_ cid: ChannelId, handOff: ChannelHandOff, validUntil: ContinuousClock.Instant) -> Date? {
        var skippedSince: Date?
        if case .elsewhere(let skipped) = channels[cid] { skippedSince = skipped }
        let handOffProgress = HandledProgress(handOff: handOff)
        progress[cid] = handOffProgress
        channels[cid] = .catchingUp(buffered: [], validUntil: validUntil)
        if let handledThrough = handOff.handledThrough { return handledThrough.addingTimeInterval(-handOffProgress.reorderingMargin) }
        return skippedSince
    }

    /// Ends the catching up of `cid`: returns the live events that waited, and the channel is
    /// held from now on.
    mutating func finishCatchingUp(_ cid: ChannelId) -> [Event] {
        guard case .catchingUp(let buffered, let validUntil) = channels[cid] else { return [] }
        channels[cid] = .held(validUntil: validUntil)
        return buffered
    }

    /// Gives up a lease just taken whose channel could not be synced: the events are skipped
    /// again, from `skippedSince`, and the next round tries again.
    mutating func abandonCatchingUp(_ cid: ChannelId, skippedSince: Date?) {
        guard case .catchingUp(let buffered, _) = channels[cid] else { return }
        let earliestBuffered = buffered.compactMap(\.createdAt).min()
        channels[cid] = .elsewhere(skippedSince: [skippedSince, earliestBuffered].compactMap { $0 }.min())
        progress[cid] = nil
    }

    /// Starts giving up `cid`: its new events are skipped from now on.
    mutating func beginReleasing(_ cid: ChannelId) {
        if case .held = channels[cid] { channels[cid] = .releasing }
    }

    /// The lease of `cid` is no longer this node's (released, lost, or no longer wanted).
    mutating func relinquish(_ cid: ChannelId) {
        channels[cid] = .elsewhere(skippedSince: nil)
        progress[cid] = nil
    }

    /// A held lease was renewed until `validUntil`.
    mutating func renewed(_ cid: ChannelId, until validUntil: ContinuousClock.Instant) {
        switch channels[cid] {
        case .held: channels[cid] = .held(validUntil: validUntil)
        case .catchingUp:
            if case .catchingUp(let buffered, _) = channels.removeValue(forKey: cid) {
                channels[cid] = .catchingUp(buffered: buffered, validUntil: validUntil)
            }
        default: break
        }
    }

    /// How far `cid` was handled, for its lease; nil when this node does not hold it.
    mutating func handOff(_ cid: ChannelId) -> ChannelHandOff? {
        progress[cid]?.handOff()
    }

    /// A delivery of the bot's own (a scheduled run, a conversation's timeout) was queued in a
    /// held channel: its hand-off lists it once it is finished.
    mutating func acceptedOwn(_ key: String, in cid: ChannelId) {
        progress[cid]?.acceptedOwn(key)
    }

    /// Channels whose lease this node holds, is taking or is giving up.
    var leased: [ChannelId] {
        channels.compactMap { cid, standing in
            if case .elsewhere = standing { return nil }
            return cid
        }
    }

    /// Whether `cid` is being given up.
    func isReleasing(_ cid: ChannelId) -> Bool {
        if case .releasing = channels[cid] { return true }
        return false
    }

    /// Channels whose lease this node holds and has caught up on.
    var held: Set<ChannelId> {
        Set(channels.compactMap { cid, standing in
            if case .held = standing { return cid }
            return nil
        })
    }
}

extension HandledProgress {
    /// Progress on one channel from where its last holder left it (a channel without events
    /// may still list the bot's own deliveries).
    init(handOff: ChannelHandOff) {
        self.init(
            resumingFrom: handOff.handledThrough.map { handledThrough in
                BotCheckpoint(
                    bot: "", watchingSince: handledThrough, handledThrough: handledThrough, recentlyHandled: handOff.recentlyHandled,
                    savedAt: handledThrough)
            })
        if handOff.handledThrough == nil { keepListing(handOff.recentlyHandled) }
    }
}
