import ChatClient
import ChatLocking
import ChatModels
import Logging

extension BotService {
    /// Replaces the bot's handlers with those of the bot `makeBot` builds, without
    /// reconnecting: messages that arrive meanwhile wait in their channels' queues, handlers
    /// already running finish with the old handlers, and `makeBot` runs once none runs, so the
    /// old and the new handlers never use what they hold (a store, a folder) at the same time.
    ///
    /// The new bot must have the same name and user; if it has not, or `makeBot` throws, the old
    /// handlers stay. From one of the bot's own handlers it throws (`bot.configuration`), as it
    /// would wait for that handler to finish: start it in a `Task` the handler does not await,
    /// and it applies once the handler is done.
    public func reconfigure(_ makeBot: @Sendable () throws -> Bot) async throws {
        let gate = pipeline.gate
        if let task = HandlerGate.currentTask(), gate.isHandler(task) {
            throw BotError(
                code: .configuration,
                message: "bot \(bot.name) cannot be reconfigured from one of its own handlers, which the reconfiguration waits "
                    + "for; start it in a Task the handler does not await, and it applies once the handler is done")
        }
        await reconfiguring.acquire()
        defer { reconfiguring.release() }
        let running = gate.running
        if running > 0 { logger.info("Bot \(bot.name) waits for \(running) running handlers before taking its new configuration") }
        await gate.closeAndWaitUntilIdle()
        defer { gate.open() }
        let replacement = try makeBot()
        guard replacement.name == bot.name, replacement.user.id == bot.user.id else {
            throw BotError(
                code: .configuration,
                message: "bot \(bot.name) (user \(bot.user.id)) cannot become bot \(replacement.name) (user \(replacement.user.id)) "
                    + "without a restart; stop it and start the new one")
        }
        bot.adoptRoutes(of: replacement)
        logger.info("Bot \(bot.name) took its new configuration")
        // Commands added or taken out: the intake and the app follow (the handlers of those
        // that stay are the new ones already, looked up at each request).
        do {
            try await setUpCustomCommands()
        } catch {
            logger.error("Bot \(bot.name) could not set up its new custom commands: \(error)")
        }
    }

    /// Joins `cid` (creating it when missing) and watches it, as the bot does with its channels
    /// at start; it is one of ``channels`` from then on.
    public func follow(_ cid: ChannelId) async throws {
        do {
            try await client.join(cid, as: bot.user.id)
        } catch {
            throw BotError(code: .startFailed, message: "bot \(bot.name) could not join \(cid): \(error)", underlying: error)
        }
        configuredChannels.withLock { channels in
            if !channels.contains(cid) { channels.append(cid) }
        }
        if configuration.events.isWebhook {
            webhookChannels.follow(cid)
        } else {
            try await connection.watch(cid)
        }
        logger.info("Bot \(bot.name) follows \(cid)", metadata: ["cid": "\(cid)"])
    }

    /// Stops watching `cid` and leaves its members, so the bot no longer follows it (after a
    /// restart neither); it is no longer one of ``channels``. Its messages already queued are
    /// still handled.
    public func leave(_ cid: ChannelId) async throws {
        do {
            if configuration.events.isWebhook {
                webhookChannels.leave(cid)
            } else {
                try await connection.unwatch(cid)
            }
            try await client.removeMembers([bot.user.id], from: cid)
        } catch {
            throw BotError(code: .configuration, message: "bot \(bot.name) could not leave \(cid): \(error)", underlying: error)
        }
        configuredChannels.withLock { $0.removeAll { $0 == cid } }
        logger.info("Bot \(bot.name) left \(cid)", metadata: ["cid": "\(cid)"])
    }
}
