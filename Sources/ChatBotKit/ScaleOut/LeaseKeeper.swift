import ChatClient
import ChatLocking
import ChatModels
import Foundation
import Logging

/// This node's share of a scaled-out bot's channels (``BotService/ScaleOut``): it keeps the
/// leases (``LeaseKeeper/run(_:)``), routes each event to the pipeline when its channel is
/// this node's, holds the live events of a channel it is taking over until the channel's past is
/// in, and follows how far each of its channels was handled (``DeliveryObserver``), which it
/// passes on with the lease.
final class LeaseKeeper: DeliveryObserver {
    /// A channel whose lease the node just took, with what happened in it since its last holder
    /// left off, waiting for the consumer to take it in before the channel's live events.
    struct PendingHandOff: Sendable {
        /// The channel.
        let cid: ChannelId
        /// Its events since its last holder's progress (`/sync`).
        let synced: [Event]
        /// The deliveries its last holder handled around that point.
        let recentlyHandled: [String]
        /// The bot's reminders in the channel that came due since then: the service sent their
        /// `notification.reminder_due` while no node handled the channel, and does not send it again.
        let dueReminders: [MessageReminder]
    }

    /// The store, this node's name and the lease duration.
    let scaleOut: BotService.ScaleOut
    /// The bot whose channels these are.
    let bot: Bot
    /// The bot's connection: the channels it watches are those whose leases count, and a channel
    /// taken over is synced through it.
    let connection: EventConnection
    /// How far back a channel taken over is synced at most.
    let maximumAge: Duration
    let metrics: BotMetrics
    let logger: Logger
    /// Which channels this node handles.
    let ownership = Locked(ChannelOwnership())
    /// Asks the lease rounds for one now.
    let rounds = Locked<AsyncStream<Void>.Continuation?>(nil)
    /// Whether the lease store cannot be reached (said once).
    let isFailing = Locked(false)
    /// Channels taken over, waiting for the consumer (which a nudge of the connection wakes).
    let handOffs = Locked<[PendingHandOff]>([])
    /// This run's id in the lease store, which keeps two processes from running as one node.
    let instance = UUID().uuidString.lowercased()
    /// One round of the leases at a time (the first, before the bot is ready, and the later ones).
    let balancing = AsyncSlots(limit: 1)

    /// The lease keeper of `bot` on the node `scaleOut` names, syncing a channel it takes over
    /// through `connection` as far back as `maximumAge`.
    init(_ scaleOut: BotService.ScaleOut, bot: Bot, connection: EventConnection, maximumAge: Duration, metrics: BotMetrics, logger: Logger) {
        self.scaleOut = scaleOut
        self.bot = bot
        self.connection = connection
        self.maximumAge = maximumAge
        self.metrics = metrics
        self.logger = logger
    }

    /// The channels this node handles: those whose lease it holds and has caught up on.
    var leasedChannels: Set<ChannelId> { ownership.withLock(\.held) }

    /// Takes an event in for `pipeline`: handled when its channel's lease is this node's, kept
    /// while the channel is being taken over, left to the other nodes otherwise. The channels
    /// just taken over come first: their past before their live events.
    func take(_ event: Event, into pipeline: DeliveryPipeline, workers: inout DiscardingTaskGroup) async {
        for handOff in takeHandOffs() { await takeIn(handOff, into: pipeline, workers: &workers) }
        // The nudge that woke the consumer for them.
        guard event.type != .wakeUp else { return }
        guard let cid = event.cid else { return await pipeline.take(event, workers: &workers) }
        let now = ContinuousClock.now
        switch ownership.withLock({ $0.route(event, in: cid, now: now) }) {
        case .handle:
            await pipeline.take(event, workers: &workers)
        case .hold:
            return
        case .skip(let isNewChannel):
            pipeline.pass(event)
            metrics.leftToOtherNode()
            if isNewChannel { requestRound() }
        }
    }

    /// The channels taken over since the last look (usually none).
    private func takeHandOffs() -> [PendingHandOff] {
        handOffs.withLock { pending in
            var taken: [PendingHandOff] = []
            swap(&taken, &pending)
            return taken
        }
    }

    /// A channel taken over: the deliveries its last holder handled are not handled again, its
    /// synced events are taken in, then the bot's reminders that came due meanwhile, then the
    /// live events that waited, and the channel is held.
    private func takeIn(_ handOff: PendingHandOff, into pipeline: DeliveryPipeline, workers: inout DiscardingTaskGroup) async {
        pipeline.remember(handOff.recentlyHandled)
        for event in handOff.synced { await pipeline.take(event, workers: &workers) }
        for reminder in handOff.dueReminders {
            guard let message = reminder.message else { continue }
            logger.info(
                "Bot \(bot.name) handles its reminder of message \(message.id), due while no node handled \(handOff.cid)",
                metadata: ["cid": "\(handOff.cid)"])
            await pipeline.queueOwn(Delivery(.reminderDue(reminder), message), in: handOff.cid, workers: &workers)
        }
        for event in ownership.withLock({ $0.finishCatchingUp(handOff.cid) }) { await pipeline.take(event, workers: &workers) }
    }

    /// Follows how far a held channel was handled: an event taken in, and the delivery it became.
    func took(_ event: Event, as delivery: Delivery?) {
        guard let cid = event.cid else { return }
        ownership.withLock { $0.track(cid, eventAt: event.createdAt, delivery: delivery?.key) }
    }

    /// Nothing to follow: the channel is another node's, or being given up, and its next holder
    /// syncs it from where this node's handling of it stopped.
    func passed(_ event: Event) {}

    /// Listed in the channel's hand-off once finished, so that its next holder does not make it again.
    func queuedOwn(_ delivery: Delivery, in cid: ChannelId) {
        ownership.withLock { $0.acceptedOwn(delivery.key, in: cid) }
    }

    /// Handled to the end.
    func finished(_ delivery: Delivery, in cid: ChannelId) {
        ownership.withLock { $0.finished(delivery.key, in: cid) }
    }
}
