import ChatClient
import ChatLocking
import ChatModels
import Foundation
import Logging
import ServiceLifecycle
import Tracing

/// Runs one bot: its user's event connection (or its share of the app's webhook, see
/// ``EventSource``), its channels, and the handling of new, edited and deleted messages.
///
/// Messages, edits and deletions of one channel are handled in order; channels are handled
/// concurrently, at most `maximumConcurrentChannels` at a time. A message, each of its edits
/// and its deletion are handled once, even when they arrive twice (a reconnect, `/sync`, or
/// both `message.new` and `notification.message_new`). On a graceful shutdown it stops taking
/// messages, lets running handlers finish within `drainDeadline`, and returns.
public final class BotService: Service, Sendable {
    /// Limits and timing.
    public struct Configuration: Sendable {
        /// How many channels are handled at the same time.
        public var maximumConcurrentChannels: Int
        /// How long running handlers get to finish on shutdown before they are cancelled.
        public var drainDeadline: Duration
        /// The event connection's timing.
        public var connection: EventConnection.Configuration
        /// Where the bot keeps how far it has handled, to catch up on what it missed when it
        /// starts again; nil (the default) starts from the moment it connects.
        public var catchUp: CatchUp?
        /// The bot's other nodes and the leases that share its channels out among them; nil
        /// (the default) handles every channel here.
        public var scaleOut: ScaleOut?
        /// Where the bot's events come from: its own WebSocket connection (the default), or the
        /// app's webhook requests through an intake.
        public var events: EventSource
        /// Where the bot's custom commands are answered (ChatBotKitWebhooks'
        /// `CustomCommandIntake`, which the app's `custom_action_handler_url` reaches); nil when
        /// it answers none. At start the bot registers its commands there, creates them on the
        /// app and offers them in the types of its channels.
        public var commands: (any CustomCommandRegistry)?

        /// The defaults: 8 channels at once, 10 s to drain, no catching up, one node, events
        /// over a WebSocket, no custom commands.
        public init(
            maximumConcurrentChannels: Int = 8, drainDeadline: Duration = .seconds(10),
            connection: EventConnection.Configuration = EventConnection.Configuration(), catchUp: CatchUp? = nil,
            scaleOut: ScaleOut? = nil, events: EventSource = .webSocket, commands: (any CustomCommandRegistry)? = nil
        ) {
            self.commands = commands
            self.maximumConcurrentChannels = maximumConcurrentChannels
            self.drainDeadline = drainDeadline
            self.connection = connection
            self.catchUp = catchUp
            self.scaleOut = scaleOut
            self.events = events
        }
    }

    /// The bot.
    public let bot: Bot
    /// Its client (acting as the bot's user).
    public let client: ChatClient
    /// The channels it joins and watches (created, with the bot as a member, when missing); it
    /// also watches every other channel it is a member of. ``follow(_:)`` adds to them.
    public var channels: [ChannelId] { configuredChannels.withLock { $0 } }
    /// The configuration.
    public let configuration: Configuration
    /// The bot's event connection (not opened when its events come by webhook).
    public let connection: EventConnection
    /// The bot's logger (its metadata names the bot).
    public let logger: Logger
    let handled = Locked(RecentKeys(capacity: 50_000))
    /// How far it has handled (kept only with ``Configuration/catchUp``).
    let progress = Locked(HandledProgress())
    /// When the checkpoint was last saved, and whether saving fails.
    let checkpointSaving = Locked(CheckpointSaving())
    let mailboxes = ChannelMailboxes()
    /// Which channels this node handles (kept only with ``Configuration/scaleOut``).
    let ownership = Locked(ChannelOwnership())
    /// Asks the lease rounds for one now.
    let leaseRounds = Locked<AsyncStream<Void>.Continuation?>(nil)
    /// Whether the lease store cannot be reached (said once).
    let leaseFailing = Locked(false)
    /// Channels taken over, waiting for the consumer (which a nudge of the connection wakes).
    let handOffs = Locked<[PendingHandOff]>([])
    /// This run's id in the lease store, which keeps two processes from running as one node.
    let instance = UUID().uuidString.lowercased()
    /// One round of the leases at a time (the first, before the bot is ready, and the later ones).
    let leaseBalancing = AsyncSlots(limit: 1)
    private let readiness = Locked(Readiness.starting([]))
    let configuredChannels: Locked<[ChannelId]>
    let gate = HandlerGate()
    /// One reconfiguration at a time.
    let reconfiguring = AsyncSlots(limit: 1)
    let metrics: BotMetrics
    /// The channels a bot taking its events by webhook follows: the webhook brings every
    /// channel's events, and it keeps those of its channels and memberships.
    let webhookChannels = Locked<Set<ChannelId>>([])
    /// Set once the bot drains: no scheduled run or conversation timeout is queued any more.
    let timedWorkStopped = Locked(false)
    /// When the bot was last known running, from its checkpoint: the runs its schedules missed
    /// since are made up once it is ready (the last of each), and its reminders due since handled.
    let schedulesResumeFrom = Locked<Date?>(nil)

    /// A service for `bot`, talking through `client`.
    public init(bot: Bot, client: ChatClient, channels: [ChannelId], configuration: Configuration = Configuration(), logger: Logger? = nil) {
        self.bot = bot
        self.client = client
        configuredChannels = Locked(channels)
        self.configuration = configuration
        metrics = BotMetrics(bot: bot.name, factory: client.metricsFactory)
        // A bot follows its membership, as its users expect: a channel it is added to from an
        // app is handled like its configured ones, across restarts and reconnects.
        var connectionConfiguration = configuration.connection
        connectionConfiguration.watchesMemberChannels = true
        connection = EventConnection(client: client, user: bot.user, configuration: connectionConfiguration)
        var botLogger = logger ?? Logger(label: "chatbotkit.bot")
        botLogger[metadataKey: "bot"] = .string(bot.name)
        if let scaleOut = configuration.scaleOut { botLogger[metadataKey: "node"] = .string(scaleOut.node) }
        self.logger = botLogger
    }

    /// A service for `bot` on `server`, with a client of its own acting as the bot's user,
    /// uploading through `cdnStorage` (the chat API's CDN by default) and keeping its calls
    /// within `rateBudget`, if any.
    public convenience init(
        bot: Bot, server: URL, apiKey: String, apiSecret: String, channels: [ChannelId], configuration: Configuration = Configuration(),
        cdnStorage: (any CDNStorage)? = nil, rateBudget: RateBudget? = nil, logger: Logger
    ) {
        let client = ChatClient(
            configuration: ChatClientConfiguration(
                apiKey: apiKey, baseURL: server, credentials: .apiSecret(apiSecret), userId: bot.user.id, rateBudget: rateBudget),
            cdnStorage: cdnStorage, logger: logger)
        self.init(bot: bot, client: client, channels: channels, configuration: configuration, logger: logger)
    }

    /// Handlers running right now.
    public var runningHandlers: Int { gate.running }

    /// Whether a delivery is queued or being handled (what `bots simulate` waits out).
    public var hasPendingWork: Bool { mailboxes.pendingChannels > 0 }

    /// Waits until the bot is connected and watching its channels; throws the error that
    /// stopped it if it could not start or stopped before it was ready.
    public func waitUntilReady() async throws {
        let outcome: Result<Void, BotError> = await withCheckedContinuation { continuation in
            let settled = readiness.withLock { readiness -> Result<Void, BotError>? in
                switch readiness {
                case .starting(var waiters):
                    waiters.append(continuation)
                    readiness = .starting(waiters)
                    return nil
                case .settled(let outcome): return outcome
                }
            }
            if let settled { continuation.resume(returning: settled) }
        }
        try outcome.get()
    }

    /// Connects, watches the channels, and handles messages until shut down.
    public func run() async throws {
        defer { configuration.commands?.unregister(bot: bot.name) }
        do {
            try await handleMessages()
            settle(.failure(BotError(code: .startFailed, message: "bot \(bot.name) stopped before it was ready")))
        } catch {
            let botError = error as? BotError ?? BotError(code: .startFailed, message: "bot \(bot.name) stopped: \(error)", underlying: error)
            settle(.failure(botError))
            throw error
        }
    }

    private func handleMessages() async throws {
        if case .webhook(let intake) = configuration.events { return try await handleWebhookEvents(from: intake) }
        try await prepare()
        let catchUp = configuration.catchUp
        if let catchUp, let since = resumeFromCheckpoint(catchUp) { connection.catchUp(since: since) }
        // Before connecting: what is posted from here on is caught up on after a restart.
        let followingSince = Date()
        let scaleOut = configuration.scaleOut
        let slots = AsyncSlots(limit: configuration.maximumConcurrentChannels)
        let connection = self.connection
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                try await connection.run()
            }
            group.addTask { [self] in
                await connection.waitUntilConnected()
                for cid in channels { try await connection.watch(cid) }
                if let scaleOut {
                    do {
                        try await balanceLeasesAtStart(scaleOut)
                    } catch let taken as NodeNameTaken {
                        throw BotError(code: .startFailed, message: "bot \(bot.name) cannot start: \(taken)", underlying: taken)
                    } catch {
                        throw BotError(
                            code: .startFailed, message: "bot \(bot.name) cannot reach its lease store (node \(scaleOut.node)): \(error)",
                            underlying: error)
                    }
                }
                if catchUp != nil { progress.withLock { $0.following(since: followingSince) } }
                settle(.success(()))
                logger.info("Bot \(bot.name) is ready", metadata: ["channels": "\(connection.watchedChannels.map(\.rawValue))"])
            }
            // The consumer stops when the connection's events end (shutdown), then waits for the
            // channel workers to drain their queues. A discarding group: a plain task group keeps
            // every finished worker until it is awaited, one per burst of messages in a channel,
            // for the life of the bot.
            group.addTask { [self] in
                try await withThrowingDiscardingTaskGroup { workers in
                    if let catchUp { workers.addTask { [self] in await saveCheckpoints(catchUp) } }
                    workers.addTask { [self] in await runTimedWork(slots: slots) }
                    if let scaleOut {
                        workers.addTask { [self] in await keepLeases(scaleOut) }
                        for await event in connection.events {
                            // Channels just taken over come first: their past before their live events.
                            for handOff in takeHandOffs() {
                                await consume(handOff, slots: slots, workers: &workers)
                            }
                            if event.type != .wakeUp { await consumeLeased(event, slots: slots, workers: &workers) }
                        }
                    } else {
                        for await event in connection.events { await consume(event, slots: slots, workers: &workers) }
                    }
                    await drain(&workers)
                    // Nothing is left to handle: this stops the saving of checkpoints and the lease rounds.
                    workers.cancelAll()
                }
                if let scaleOut { await releaseLeases(scaleOut) }
                if let catchUp { saveCheckpoint(catchUp, always: true) }
            }
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
    private func consume(_ handOff: PendingHandOff, slots: AsyncSlots, workers: inout ThrowingDiscardingTaskGroup<any Error>) async {
        handled.withLock { handled in
            for key in handOff.recentlyHandled { handled.insert(key) }
        }
        for event in handOff.synced { await consume(event, slots: slots, workers: &workers, leasedIn: handOff.cid) }
        for reminder in handOff.dueReminders {
            guard let message = reminder.message else { continue }
            logger.info(
                "Bot \(bot.name) handles its reminder of message \(message.id), due while no node handled \(handOff.cid)",
                metadata: ["cid": "\(handOff.cid)"])
            if queueOwn(Delivery(.reminderDue(reminder), message), in: handOff.cid) {
                await startDraining(handOff.cid, slots: slots, workers: &workers)
            }
        }
        for event in ownership.withLock({ $0.finishCatchingUp(handOff.cid) }) {
            await consume(event, slots: slots, workers: &workers, leasedIn: handOff.cid)
        }
    }

    /// An event of a scaled-out bot: handled when its channel's lease is this node's, kept
    /// while the channel is being taken over, skipped otherwise.
    private func consumeLeased(_ event: Event, slots: AsyncSlots, workers: inout ThrowingDiscardingTaskGroup<any Error>) async {
        guard let cid = event.cid else { return await consume(event, slots: slots, workers: &workers) }
        let now = ContinuousClock.now
        switch ownership.withLock({ $0.route(event, in: cid, now: now) }) {
        case .handle:
            await consume(event, slots: slots, workers: &workers, leasedIn: cid)
        case .hold:
            return
        case .skip(let isNewChannel):
            logMembership(event)
            metrics.leftToOtherNode()
            if configuration.catchUp != nil { track(event, accepted: nil) }
            if isNewChannel { requestLeaseRound() }
        }
    }

    /// Takes an event in: a delivery not handled before is queued in its channel's mailbox, and
    /// a worker started for a channel that had none. `leasedIn` is the channel whose lease
    /// this node holds, whose progress is followed for the next holder.
    func consume(
        _ event: Event, slots: AsyncSlots, workers: inout ThrowingDiscardingTaskGroup<any Error>, leasedIn leasedChannel: ChannelId? = nil
    ) async {
        if event.type == .userDeleted { return await consumeUserDeletion(event, slots: slots, workers: &workers) }
        // A user's stop reaches the streamed reply it means now, not behind it in the mailbox.
        if event.type == .aiIndicatorStop, event.user?.id != bot.user.id { bot.generations.stop(for: event) }
        logMembership(event)
        let accepted = accept(event)
        if configuration.catchUp != nil { track(event, accepted: accepted?.0) }
        if let leasedChannel { ownership.withLock { $0.track(leasedChannel, eventAt: event.createdAt, delivery: accepted?.0.key) } }
        guard let (delivery, cid) = accepted else { return }
        if mailboxes.enqueue(delivery, in: cid) { await startDraining(cid, slots: slots, workers: &workers) }
    }

    /// Starts the worker of a channel that had none, once a slot is free.
    func startDraining(_ cid: ChannelId, slots: AsyncSlots, workers: inout ThrowingDiscardingTaskGroup<any Error>) async {
        await slots.acquire()
        workers.addTask { [self] in
            defer { slots.release() }
            await drainMailbox(cid)
        }
    }

    /// Upserts the bot's user and makes it a member of its channels.
    func prepare() async throws {
        do {
            try await client.upsertUsers([bot.user])
            for cid in channels { try await client.join(cid, as: bot.user.id) }
        } catch {
            throw BotError(code: .startFailed, message: "bot \(bot.name) could not set up its user and channels: \(error)", underlying: error)
        }
        try await setUpCustomCommands()
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

    /// A new message from someone else, an edit, the deletion or undeletion of one, or someone else's
    /// reaction to any message, not handled before; nil for anything else.
    private func accept(_ event: Event) -> (Delivery, ChannelId)? {
        let trigger: BotContext.Trigger
        switch event.type {
        case .messageNew, .notificationMessageNew: trigger = .newMessage
        case .messageUpdated:
            guard let update = updateTrigger(of: event) else { return nil }
            trigger = update
        case .messageDeleted: trigger = .deletion(isHardDelete: event.hardDelete ?? false)
        case .messageUndeleted: trigger = .undeletion
        case .channelTruncated, .channelDeleted: return acceptTruncation(event)
        case .userMessagesDeleted: return acceptUserMessagesDeletion(event)
        case .reactionNew, .reactionUpdated, .reactionDeleted: return acceptReaction(event)
        case .notificationReminderDue: return acceptReminder(event)
        case .pollVoteCasted, .pollVoteChanged, .pollVoteRemoved: return acceptPollVote(event)
        case .pollClosed: return acceptPollClosing(event)
        default: return acceptChannelEvent(event)
        }
        guard let message = event.message, let cid = event.cid ?? message.cid, message.user?.id != bot.user.id else { return nil }
        switch trigger {
        case .deletion, .reaction, .reminderDue, .pollVote, .pollClosed: break
        case .newMessage, .edit, .undeletion, .location: guard message.type != .deleted, message.type != .ephemeral else { return nil }
        }
        return once(Delivery(trigger, message), in: cid)
    }

    /// A reaction added (or replaced) or taken off, by someone other than the bot, to any
    /// message, the bot's own included: reacting to a bot's answer is how people answer it.
    /// Who reacted is resolved here once: the reaction handed on carries it as `userId`. Only
    /// for a bot with reaction handlers: in a busy channel reactions outnumber messages, and
    /// taken for nothing they would each be queued, counted and remembered as handled, crowding
    /// messages out of the window that keeps redeliveries from being handled twice.
    private func acceptReaction(_ event: Event) -> (Delivery, ChannelId)? {
        guard bot.handlesReactions, var reaction = event.reaction, let message = event.message, let cid = event.cid ?? message.cid else { return nil }
        reaction.userId = event.reactingUserId
        guard reaction.userId != bot.user.id else { return nil }
        return once(Delivery(.reaction(reaction, isRemoved: event.type == .reactionDeleted), message), in: cid)
    }

    /// The bot's own reminder come due, with the message it is about, for a bot with reminder
    /// handlers. By webhook the app gets every user's reminders: only the bot's are taken.
    private func acceptReminder(_ event: Event) -> (Delivery, ChannelId)? {
        guard bot.handlesReminders, let json = event.extraData["reminder"],
            let reminder = try? MessageReminder(json: json, operation: "notification.reminder_due"), reminder.userId == bot.user.id,
            let message = reminder.message
        else { return nil }
        return once(Delivery(.reminderDue(reminder), message), in: reminder.cid)
    }

    /// Another channel event, for a bot with handlers of its type, unless the bot did it or it
    /// concerns the bot's own membership; the bot's addition to a channel goes to its
    /// addition handlers instead.
    private func acceptChannelEvent(_ event: Event) -> (Delivery, ChannelId)? {
        guard let cid = event.cid else { return nil }
        if event.isAddition(of: bot.user.id) {
            return bot.handlesAdditions ? once(Delivery(addition: event, in: cid), in: cid) : nil
        }
        guard bot.handlesEvents(of: event.type) else { return nil }
        guard (event.member?.userId ?? event.user?.id) != bot.user.id, event.user?.id != bot.user.id else { return nil }
        return once(Delivery(event: event, in: cid), in: cid)
    }

    /// A channel's truncation or deletion, for the bots that follow them (queued in order with
    /// the channel's messages all the same, so nothing is dropped while none does).
    private func acceptTruncation(_ event: Event) -> (Delivery, ChannelId)? {
        guard let channel = event.channel, let cid = event.cid ?? Optional(channel.cid) else { return nil }
        let isDeleted = event.type == .channelDeleted
        guard let truncatedAt = (isDeleted ? channel.deletedAt : channel.truncatedAt) ?? event.createdAt else { return nil }
        let truncation = ChannelTruncation(channel: channel, truncatedAt: truncatedAt, isChannelDeleted: isDeleted, user: event.user)
        return once(Delivery(truncation), in: cid)
    }

    /// One user's messages in a channel deleted at once, unless they are the bot's own (queued
    /// like a truncation, whether or not the bot has handlers for it).
    private func acceptUserMessagesDeletion(_ event: Event) -> (Delivery, ChannelId)? {
        guard let cid = event.cid, let user = event.user, user.id != bot.user.id, let deletedAt = event.createdAt else { return nil }
        return once(Delivery(UserMessagesDeletion(cid: cid, user: user, deletedAt: deletedAt, isHardDelete: event.hardDelete ?? false)), in: cid)
    }

    /// Follows how far the bot has handled (for its checkpoint): the event's time, and the
    /// delivery it became, if any.
    private func track(_ event: Event, accepted delivery: Delivery?) {
        guard event.cid != nil, let eventAt = event.createdAt else { return }
        progress.withLock { progress in
            if let delivery { progress.accepted(delivery.key, eventAt: eventAt) } else { progress.saw(eventAt: eventAt) }
        }
    }

    /// The delivery, unless it was handled before (a redelivery after a reconnect or `/sync`).
    func once(_ delivery: Delivery, in cid: ChannelId) -> (Delivery, ChannelId)? {
        guard handled.withLock({ $0.insert(delivery.key) }) else {
            logger.debug("Delivered again; not handled twice", metadata: ["key": "\(delivery.key)"])
            metrics.redelivered()
            return nil
        }
        metrics.accepted(delivery.metricsTrigger)
        if case .message(.newMessage, let message) = delivery.work, !message.attachments.isEmpty { metrics.received(message.attachmentCounts) }
        return (delivery, cid)
    }

    func drainMailbox(_ cid: ChannelId) async {
        let tracer = client.tracer
        let task = HandlerGate.currentTask()
        while let delivery = mailboxes.next(in: cid) {
            let span = DeliverySpan.start(delivery, bot: bot.name, cid: cid, tracer: tracer)
            await gate.admit(task: task)
            metrics.started()
            let start = ContinuousClock.now
            if span is NoOpTracer.NoOpSpan {
                // No tracer: the two task-local values would cost more than the rest of the span.
                await handle(delivery, in: cid)
            } else {
                await DeliverySpan.$current.withValue(span) {
                    await ServiceContext.$current.withValue(span.context) { await handle(delivery, in: cid) }
                }
            }
            span.end()
            // A handler cut off by the drain deadline did not finish: the next start handles it again.
            if !Task.isCancelled {
                if configuration.catchUp != nil { progress.withLock { $0.finished(delivery.key) } }
                if configuration.scaleOut != nil { ownership.withLock { $0.finished(delivery.key, in: cid) } }
            }
            metrics.finished(delivery.metricsTrigger, after: ContinuousClock.now - start)
            gate.leave(task: task)
        }
    }

    private func handle(_ delivery: Delivery, in cid: ChannelId) async {
        switch delivery.work {
        case .truncation(let truncation):
            await bot.handle(truncation, channel: client.channel(cid), logger: logger)
        case .userMessagesDeletion(let deletion):
            await bot.handle(deletion, channel: client.channel(cid), logger: logger)
        case .event(let event):
            await bot.handle(event, channel: client.channel(cid), logger: logger, postKey: delivery.key)
        case .addition(let event):
            await bot.handleAddition(event, channel: client.channel(cid), logger: logger, postKey: delivery.key)
        case .schedule(let name, let scheduledAt, let isMadeUp):
            await bot.runSchedule(name, at: scheduledAt, isMadeUp: isMadeUp, channel: client.channel(cid), logger: logger, postKey: delivery.key)
        case .conversationTimeout(let key, let expiresAt):
            await bot.sayTimedOut(key, expiresAt: expiresAt, channel: client.channel(cid), logger: logger, postKey: delivery.key)
        case .message(let trigger, let message):
            let context = BotContext(
                message: message, trigger: trigger, channel: client.channel(cid), bot: bot, logger: logger, replyKey: delivery.key)
            switch trigger {
            case .newMessage:
                await bot.handle(message, context: context)
                await handleSharedLocation(of: message, in: cid)
            case .edit: await bot.handleUpdate(context: context)
            case .undeletion: await bot.handleUndeletion(context: context)
            case .deletion(let isHardDelete): await bot.handle(MessageDeletion(message: message, isHardDelete: isHardDelete), context: context)
            case .reaction(let reaction, let isRemoved): await bot.handle(reaction, isRemoved: isRemoved, context: context)
            case .reminderDue(let reminder): await bot.handle(reminder, context: context)
            case .pollVote(let vote, _, _): await bot.handle(vote, context: context)
            case .pollClosed(let poll): await bot.handle(closed: poll, context: context)
            case .location(let location, _): await bot.handle(location, context: context)
            }
        }
    }

    /// Waits until every queued delivery is handled, cancelling the handlers still running at
    /// the drain deadline. An idle bot returns at once: the deadline is only for work in hand
    /// (it used to be waited out in full whenever no handler was running).
    func drain(_ workers: inout ThrowingDiscardingTaskGroup<any Error>) async {
        let deadline = ContinuousClock.now + configuration.drainDeadline
        timedWorkStopped.withLock { $0 = true }
        // A channel leaves the mailboxes when its worker finds its queue empty, so none left
        // means no handler running and nothing queued.
        while hasPendingWork, !Task.isCancelled {
            guard ContinuousClock.now < deadline else {
                logger.warning("Handlers did not finish within \(configuration.drainDeadline); cancelling them")
                workers.cancelAll()
                return
            }
            // Only while shutting down; polled, as handlers signal nothing when they finish.
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Whether the bot got connected and watched its channels (it may have stopped since).
    var becameReady: Bool {
        readiness.withLock { readiness in
            if case .settled(.success) = readiness { return true }
            return false
        }
    }

    /// Records that the bot became ready (or never will) and wakes everyone waiting; only the
    /// first outcome counts.
    func settle(_ outcome: Result<Void, BotError>) {
        let waiters = readiness.withLock { readiness -> [CheckedContinuation<Result<Void, BotError>, Never>] in
            guard case .starting(let waiters) = readiness else { return [] }
            readiness = .settled(outcome)
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }

    private enum Readiness {
        case starting([CheckedContinuation<Result<Void, BotError>, Never>])
        case settled(Result<Void, BotError>)
    }
}
