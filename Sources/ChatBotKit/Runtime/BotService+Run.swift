import ChatClient
import ChatLocking
import ChatModels
import Foundation
import Logging

extension BotService {
    /// Runs the bot on its own event connection until shutdown: sets up its user and channels,
    /// connects (catching up from the checkpoint, if any), watches its channels, takes its
    /// share of the leases (scaled out), and meanwhile takes in what the connection brings.
    func runOverWebSocket() async throws {
        try await prepare()
        if let since = resume() { connection.catchUp(since: since) }
        // Before connecting: what is posted from here on is caught up on after a restart.
        let followingSince = Date()
        let connection = self.connection
        // Not connected yet: these are joined and watched, in pages, as the connection comes up.
        try await connection.watch(channels)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                try await connection.run()
            }
            group.addTask { [self] in
                await connection.waitUntilConnected()
                if let leaseKeeper { try await leaseKeeper.start(pipeline) }
                checkpointer?.following(since: followingSince)
                readiness.settle(.success(()))
                logger.info("Bot \(bot.name) is ready: \(connection.lastWatchReport.map { "\($0)" } ?? "not connected")")
            }
            // The consumer stops when the connection's events end (shutdown).
            group.addTask { [self] in await handle(connection.events) }
        }
    }

    /// Upserts the bot's user; when its events come by webhook, also makes it a member of its
    /// channels, in pages (over its WebSocket, the connection joins them as it watches them).
    /// A channel listed twice is said so once.
    func prepare() async throws {
        for (cid, times) in repeatedChannels {
            logger.warning("Bot \(bot.name) lists \(cid) \(times) times; it is joined and watched once", metadata: ["cid": "\(cid)"])
        }
        do {
            try await client.upsertUsers([bot.user])
            if configuration.events.isWebhook {
                let pages = try await client.joinChannels(channels, as: bot.user.id)
                refusedByWebhookStart.withLock { $0 = pages.failures }
                for failure in pages.failures {
                    logger.error("Bot \(bot.name) cannot join \(failure.cid): \(failure.message)", metadata: ["cid": "\(failure.cid)"])
                }
                logger.info(
                    "Bot \(bot.name) joined \(pages.ready.count) channels (\(pages.joined.count) newly, \(pages.created.count) created) in \(pages.calls) calls")
            }
        } catch {
            throw BotError(code: .startFailed, message: "bot \(bot.name) could not set up its user and channels: \(error)", underlying: error)
        }
        try await setUpCustomCommands()
    }

    /// The channels the service refused to let the bot join or watch (a 403 for a channel it
    /// may not join), each once and named; the bot runs in the others.
    public var refusedChannels: [ChannelFailure] {
        configuration.events.isWebhook ? refusedByWebhookStart.withLock { $0 } : connection.refusedChannels
    }

    /// The channels it was given more than once, with how many times; each is joined and
    /// watched once (and said so once in the log as it starts).
    public var duplicateChannels: [(cid: ChannelId, times: Int)] { repeatedChannels }

    /// With a checkpoint, takes in what it says (what was handled, when the bot last ran) and
    /// returns where to catch up from; nil: from now.
    func resume() -> Date? {
        checkDeadLetters()
        guard let resumption = checkpointer?.resume() else { return nil }
        pipeline.remember(resumption.recentlyHandled)
        timedWork.resume(from: resumption.lastRunning)
        return resumption.since
    }

    /// A dead-letter file that does not parse is moved aside, so that the bot starts and new
    /// letters go to a fresh file; the old one is kept to look at.
    func checkDeadLetters() {
        guard let deadLetters = pipeline.deadLetters, let (error, aside) = deadLetters.checkOrSetAside() else { return }
        logger.error("Bot \(bot.name) cannot read its dead letters: \(error.message)\(aside.map { "; the file is kept as \($0.lastPathComponent)" } ?? "")")
    }

    /// Takes `events` in until they end (shutdown), after `first` (what the bot must take in
    /// before them), with the bot's other work beside: saving its checkpoint, its timed work,
    /// keeping its leases. Then waits for the channel workers to drain their queues, and gives
    /// the leases up and saves the checkpoint a last time. A discarding group: a plain task
    /// group keeps every finished worker until it is awaited, one per burst of messages in a
    /// channel, for the life of the bot.
    func handle(_ events: some AsyncSequence<Event, Never>, first: (inout DiscardingTaskGroup) async -> Void = { _ in }) async {
        await withDiscardingTaskGroup { workers in
            if let checkpointer { workers.addTask { await checkpointer.run() } }
            workers.addTask { [timedWork, readiness] in await timedWork.run(after: readiness) }
            if let leaseKeeper { workers.addTask { [pipeline] in await leaseKeeper.run(pipeline) } }
            await first(&workers)
            if let leaseKeeper {
                for await event in events { await leaseKeeper.take(event, into: pipeline, workers: &workers) }
            } else {
                for await event in events { await pipeline.take(event, workers: &workers) }
            }
            timedWork.stop()
            await pipeline.drain(&workers)
            // Nothing is left to handle: this stops the saving of checkpoints, the timed work and the lease rounds.
            workers.cancelAll()
        }
        if let leaseKeeper { await leaseKeeper.release() }
        checkpointer?.save(always: true)
    }
}
