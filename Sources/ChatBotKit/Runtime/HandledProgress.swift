import Foundation

/// How far a bot has handled its channels, as deliveries are accepted and finished: the
/// ``BotCheckpoint`` a restart catches up from.
///
/// Channels are handled concurrently, so "handled through" is the time of the oldest delivery
/// still queued or running (every event before it is done), or of the latest event when none
/// is. Events can reach the bot a little out of their order across channels, so a restart syncs
/// from `reorderingMargin` earlier, and the deliveries handled since then are listed in the
/// checkpoint so that they are not handled twice.
struct HandledProgress: Sendable {
    /// How far before ``handledThrough`` a restart syncs from, by default.
    static let defaultReorderingMargin: TimeInterval = 5
    /// How far before ``handledThrough`` a restart syncs from.
    let reorderingMargin: TimeInterval
    /// How many handled deliveries are listed at most (the oldest go first).
    let capacity: Int
    /// The latest event seen.
    private var latestEventAt: Date?
    /// Since when the channels were followed without a gap (the checkpoint's `watchingSince`).
    private var watchingSince: Date?
    /// Deliveries accepted and not finished, by key.
    private var pending: [String: Date] = [:]
    /// Deliveries finished, oldest first (by when they finished).
    private var finished: [(key: String, at: Date)] = []
    /// The bot's own deliveries (scheduled runs, conversation timeouts) accepted and not finished.
    private var ownPending: Set<String> = []
    /// The bot's own deliveries finished lately, oldest first. Having no event time to be
    /// forgotten by, only the last ``ownKept`` are kept: enough for a hand-off or a restart
    /// right after them, which is when they could be made again.
    private var ownFinished: [String] = []
    /// How many of the bot's own finished deliveries are listed.
    static let ownKept = 32
    /// Whether anything changed since the last checkpoint was taken.
    private(set) var hasChanges = false

    /// Progress from nothing, or from `checkpoint` when the bot caught up from it (from
    /// `since`: later than the checkpoint's `watchingSince` when a gap was too old to heal).
    init(
        reorderingMargin: TimeInterval = defaultReorderingMargin, capacity: Int = 10_000, resumingFrom checkpoint: BotCheckpoint? = nil,
        since: Date? = nil
    ) {
        self.reorderingMargin = reorderingMargin
        self.capacity = capacity
        if let checkpoint {
            // A gap too old to heal is given up: what comes after `since` is what counts.
            watchingSince = max(checkpoint.watchingSince, since ?? checkpoint.watchingSince)
            latestEventAt = max(checkpoint.handledThrough, since ?? checkpoint.handledThrough)
            finished = checkpoint.recentlyHandled.map { ($0, checkpoint.handledThrough) }
        }
    }

    /// An event of one of the bot's channels reached it (handled by it or not).
    mutating func saw(eventAt: Date) {
        if watchingSince == nil { watchingSince = eventAt }
        if latestEventAt.map({ eventAt > $0 }) ?? true {
            latestEventAt = eventAt
            hasChanges = true
        }
    }

    /// The bot follows its channels from `date` on (it became ready then; this machine's clock,
    /// as the connection's own gap healing uses). A bot that has seen no event yet counts as
    /// having handled everything up to then, so that it has a checkpoint to catch up from and
    /// make up schedules with, even in quiet channels. Progress already made is left alone.
    mutating func following(since date: Date) {
        guard latestEventAt == nil, pending.isEmpty else { return }
        watchingSince = watchingSince ?? date
        latestEventAt = date
        hasChanges = true
    }

    /// A delivery was queued.
    mutating func accepted(_ key: String, eventAt: Date) {
        saw(eventAt: eventAt)
        pending[key] = eventAt
        hasChanges = true
    }

    /// A delivery of the bot's own (a scheduled run, a conversation's timeout) was queued. It
    /// has no event time, so it does not hold back or move on how far events were handled;
    /// once finished it is listed with them, so that the next holder of the channel, or the
    /// next start, does not handle it again.
    mutating func acceptedOwn(_ key: String) {
        ownPending.insert(key)
    }

    /// Lists `keys`, handed over with a channel that had no event, as the bot's own.
    mutating func keepListing(_ keys: [String]) {
        ownFinished = Array(keys.suffix(Self.ownKept))
    }

    /// A delivery's handlers ran to the end (not cut off by a shutdown).
    mutating func finished(_ key: String) {
        // Events first: every message finishes here, and looking the bot's own up first cost
        // each of them a hash of its key in a set that is nearly always empty.
        if let eventAt = pending.removeValue(forKey: key) {
            finished.append((key, eventAt))
            if finished.count > capacity { finished.removeFirst(finished.count - capacity) }
        } else if ownPending.remove(key) != nil {
            ownFinished.append(key)
            if ownFinished.count > Self.ownKept { ownFinished.removeFirst(ownFinished.count - Self.ownKept) }
        } else {
            return
        }
        hasChanges = true
    }

    /// Where a restart syncs from: ``handledThrough`` less the reordering margin, but not before
    /// the bot began following its channels.
    static func syncStart(of checkpoint: BotCheckpoint, reorderingMargin: TimeInterval = defaultReorderingMargin) -> Date {
        max(checkpoint.handledThrough.addingTimeInterval(-reorderingMargin), checkpoint.watchingSince)
    }

    /// Every event up to this time was handled; nil before any event.
    var handledThrough: Date? { pending.values.min() ?? latestEventAt }

    /// What the next holder of a channel takes over: how far its events were handled (nil
    /// before any event) and the deliveries handled since, those of the bot's own too.
    mutating func handOff() -> ChannelHandOff {
        guard let checkpoint = checkpoint(bot: "") else { return ChannelHandOff(handledThrough: nil, recentlyHandled: ownFinished) }
        return ChannelHandOff(handledThrough: checkpoint.handledThrough, recentlyHandled: checkpoint.recentlyHandled)
    }

    /// The checkpoint for `bot` now; nil before any event. Forgets the deliveries too old to be
    /// synced again.
    mutating func checkpoint(bot: String, now: Date = Date()) -> BotCheckpoint? {
        hasChanges = false
        guard let handledThrough else { return nil }
        let syncedFrom = handledThrough.addingTimeInterval(-reorderingMargin)
        finished.removeAll { $0.at < syncedFrom }
        return BotCheckpoint(
            bot: bot, watchingSince: watchingSince, handledThrough: handledThrough, recentlyHandled: finished.map(\.key) + ownFinished,
            savedAt: now)
    }
}
