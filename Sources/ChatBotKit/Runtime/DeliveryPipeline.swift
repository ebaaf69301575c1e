import ChatClient
import ChatLocking
import ChatModels
import Foundation
import Logging

/// Takes a bot's events in and runs its handlers: each event becomes a delivery or nothing
/// (``EventAcceptance``), a delivery handled before is dropped (a reconnect, `/sync`, or both
/// `message.new` and `notification.message_new` bring it again), the others wait in their
/// channel's mailbox, and each channel with deliveries gets a worker, at most
/// `maximumConcurrentChannels` at a time, that handles them one after the other. The
/// ``DeliveryObserver``s hear of each event taken in and each delivery finished.
///
/// The workers run in the task group of whoever takes the event in (the bot's consumer, or
/// its timed work): waiting there for a free slot holds the events back, not the other channels.
final class DeliveryPipeline: Sendable {
    /// The bot whose handlers run.
    let bot: Bot
    /// The client its handlers reply through.
    let client: ChatClient
    /// The bot's logger.
    let logger: Logger
    /// The bot's metrics.
    let metrics: BotMetrics
    /// Counts the running handlers, and holds new ones back while the bot is reconfigured.
    let gate = HandlerGate()
    private let acceptance: EventAcceptance
    private let handled = Locked(RecentKeys(capacity: 50_000))
    /// Each channel's deliveries, in order.
    let mailboxes = ChannelMailboxes()
    private let slots: AsyncSlots
    private let drainDeadline: Duration
    /// Who follows the deliveries taken in and finished.
    let observers: [any DeliveryObserver]
    /// The channels this node handles, where a deleted user's messages are forgotten.
    private let channels: @Sendable () -> [ChannelId]
    /// Where deliveries given up go (with a checkpoint); nil: only to `onError`.
    let deadLetters: DeadLetterFile?

    /// A pipeline for `bot`, handling at most `maximumConcurrentChannels` channels at a time,
    /// and giving running handlers `drainDeadline` to finish when it drains; `channels` are
    /// those this node handles, and `deadLetters` where deliveries given up are kept.
    init(
        bot: Bot, client: ChatClient, logger: Logger, metrics: BotMetrics, maximumConcurrentChannels: Int, drainDeadline: Duration,
        observers: [any DeliveryObserver], channels: @escaping @Sendable () -> [ChannelId], deadLetters: DeadLetterFile? = nil
    ) {
        self.deadLetters = deadLetters
        self.bot = bot
        self.client = client
        self.logger = logger
        self.metrics = metrics
        acceptance = EventAcceptance(bot: bot)
        slots = AsyncSlots(limit: maximumConcurrentChannels)
        self.drainDeadline = drainDeadline
        self.observers = observers
        self.channels = channels
    }

    /// Handlers running right now.
    var runningHandlers: Int { gate.running }

    /// Whether a delivery is queued or being handled.
    var hasPendingWork: Bool { mailboxes.pendingChannels > 0 }

    /// Whether `cid` has deliveries queued or being handled.
    func isPending(_ cid: ChannelId) -> Bool { mailboxes.isPending(cid) }

    /// Counts the deliveries under `keys` as handled already (by this bot before a restart, or
    /// by a channel's last holder), so that they are not handled again.
    func remember(_ keys: [String]) {
        handled.withLock { handled in
            for key in keys { handled.insert(key) }
        }
    }

    /// Takes an event in: a delivery not handled before is queued in its channel's mailbox, and
    /// a worker started for a channel that had none.
    func take(_ event: Event, workers: inout DiscardingTaskGroup) async {
        if event.type == .userDeleted { return await takeUserDeletion(event, workers: &workers) }
        // A user's stop reaches the streamed reply it means now, not behind it in the mailbox.
        if event.type == .aiIndicatorStop, event.user?.id != bot.user.id { bot.generations.stop(for: event) }
        logMembership(event)
        let accepted = acceptance.delivery(for: event).flatMap { once($0.0, in: $0.1) }
        for observer in observers { observer.took(event, as: accepted?.0) }
        guard let (delivery, cid) = accepted else { return }
        if mailboxes.enqueue(delivery, in: cid) { await startWorker(cid, workers: &workers) }
    }

    /// An event left to another node: only followed, not handled.
    func pass(_ event: Event) {
        logMembership(event)
        for observer in observers { observer.passed(event) }
    }

    /// Queues a delivery the bot made itself (no event of its channel brought it) unless it was
    /// handled before (here, or by the channel's last holder), and starts the channel's worker
    /// when it has none.
    func queueOwn(_ delivery: Delivery, in cid: ChannelId, workers: inout DiscardingTaskGroup) async {
        guard let (delivery, cid) = once(delivery, in: cid) else { return }
        // Listed as handled once finished: in the channel's hand-off, so that the node taking
        // the channel over does not run it again, and in the checkpoint.
        for observer in observers { observer.queuedOwn(delivery, in: cid) }
        if mailboxes.enqueue(delivery, in: cid) { await startWorker(cid, workers: &workers) }
    }

    /// A user deleted with its messages, taken as the deletion of its messages in each channel
    /// this node handles. The event names no channel, and a service may send it without a
    /// `user.messages.deleted` for each channel; where that came too, both make the same delivery
    /// (channel, user, time) and it is handled once. Where the user posted nothing, the
    /// handlers find nothing to forget.
    private func takeUserDeletion(_ event: Event, workers: inout DiscardingTaskGroup) async {
        guard let (user, deletedAt, isHardDelete) = acceptance.userDeletion(event) else { return }
        for cid in channels() {
            let deletion = UserMessagesDeletion(cid: cid, user: user, deletedAt: deletedAt, isHardDelete: isHardDelete)
            await queueOwn(Delivery(deletion), in: cid, workers: &workers)
        }
    }

    /// The delivery, unless it was handled before (a redelivery after a reconnect or `/sync`).
    private func once(_ delivery: Delivery, in cid: ChannelId) -> (Delivery, ChannelId)? {
        guard handled.withLock({ $0.insert(delivery.key) }) else {
            logger.debug("Delivered again; not handled twice", metadata: ["key": "\(delivery.key)"])
            metrics.redelivered()
            return nil
        }
        metrics.accepted(delivery.metricsTrigger)
        if case .message(.newMessage, let message) = delivery.work, !message.attachments.isEmpty { metrics.received(message.attachmentCounts) }
        return (delivery, cid)
    }

    /// Starts the worker of a channel that had none, once a slot is free.
    func startWorker(_ cid: ChannelId, workers: inout DiscardingTaskGroup) async {
        await slots.acquire()
        workers.addTask { [self] in
            defer { slots.release() }
            await drainMailbox(cid)
        }
    }

    /// Waits until every queued delivery is handled, cancelling the handlers still running at
    /// the drain deadline. An idle bot returns at once: the deadline is only for work in hand
    /// (it used to be waited out in full whenever no handler was running).
    func drain(_ workers: inout DiscardingTaskGroup) async {
        let deadline = ContinuousClock.now + drainDeadline
        // A channel leaves the mailboxes when its worker finds its queue empty, so none left
        // means no handler running and nothing queued.
        while hasPendingWork, !Task.isCancelled {
            guard ContinuousClock.now < deadline else {
                logger.warning("Handlers did not finish within \(drainDeadline); cancelling them")
                workers.cancelAll()
                return
            }
            // Only while shutting down; polled, as handlers signal nothing when they finish.
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Says when the bot starts or stops following a channel; its connection does the following
    /// (`watchesMemberChannels`): edits, deletions and truncations reach only a channel's
    /// watchers, and a member that does not watch gets its new messages alone.
    private func logMembership(_ event: Event) {
        guard let cid = event.cid else { return }
        if event.isAddition(of: bot.user.id) {
            logger.info("Bot \(bot.name) was added to \(cid) and follows it", metadata: ["cid": "\(cid)"])
        } else if event.isRemoval(of: bot.user.id) {
            logger.info("Bot \(bot.name) was removed from \(cid) and no longer follows it", metadata: ["cid": "\(cid)"])
        }
    }
}
