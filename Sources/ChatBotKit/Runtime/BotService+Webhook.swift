import ChatClient
import ChatLocking
import ChatModels
import Foundation
import Logging
import ServiceLifecycle

extension BotService {
    /// Where a bot's events come from.
    public enum EventSource: Sendable {
        /// A WebSocket connection as the bot's user, watching its channels (the default).
        case webSocket
        /// The app's webhook requests, through `feed` (ChatBotKitWebhooks' `WebhookIntake`,
        /// served by its `WebhookServer` or by a route of your own). No connection is opened,
        /// so the bot's user is not online and counts no concurrent connection; the bot keeps
        /// the events of its channels and of those it is a member of.
        case webhook(any BotEventFeed)

        /// Whether the events come by webhook.
        var isWebhook: Bool {
            if case .webhook = self { return true }
            return false
        }
    }

    /// Handles the events the intake passes on until shutdown: sets up the bot's user and
    /// channels, subscribes (so nothing posted from then on is missed), catches up from the
    /// checkpoint through `/sync`, and then handles what the webhook brings, in order per channel.
    func handleWebhookEvents(from intake: any BotEventFeed) async throws {
        guard configuration.scaleOut == nil else {
            throw BotError(
                code: .configuration,
                message: "bot \(bot.name) takes its events by webhook and is scaled out: the service posts each event to one address, "
                    + "so the nodes cannot share channels out that way; scale it out with WebSocket events instead")
        }
        try await prepare()
        // Before subscribing: what is posted from here on is caught up on after a restart.
        let followingSince = Date()
        let (subscription, events) = intake.subscribe(name: bot.name)
        defer { intake.unsubscribe(subscription) }
        let members: [ChannelId]
        do {
            members = try await client.memberChannels(of: bot.user.id)
        } catch {
            throw BotError(code: .startFailed, message: "bot \(bot.name) could not list the channels it is a member of: \(error)", underlying: error)
        }
        webhookChannels.withLock { $0 = Set(channels + members) }
        let catchUp = configuration.catchUp
        let since = catchUp.flatMap { resumeFromCheckpoint($0) }
        let slots = AsyncSlots(limit: configuration.maximumConcurrentChannels)
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { workers in
                if let catchUp { workers.addTask { [self] in await saveCheckpoints(catchUp) } }
                workers.addTask { [self] in await runTimedWork(slots: slots) }
                if let since {
                    // What was posted while it was stopped, before what the webhook brings now
                    // (which waits in the subscription); what both bring is handled once.
                    let followed = webhookChannels.withLock { Array($0) }.sorted { $0.rawValue < $1.rawValue }
                    do {
                        for event in try await connection.syncEvents(followed, since: since) where follows(event) {
                            await consume(event, slots: slots, workers: &workers)
                        }
                    } catch {
                        logger.error("Bot \(bot.name) could not catch up on what it missed: \(error)")
                    }
                }
                if catchUp != nil { progress.withLock { $0.following(since: followingSince) } }
                settle(.success(()))
                logger.info(
                    "Bot \(bot.name) is ready; it takes its events by webhook",
                    metadata: ["channels": "\(webhookChannels.withLock { $0 }.map(\.rawValue).sorted())"])
                for await event in events where event.type == .userDeleted || follows(event) {
                    await consume(event, slots: slots, workers: &workers)
                }
                await drain(&workers)
                workers.cancelAll()
            }
            if let catchUp { saveCheckpoint(catchUp, always: true) }
        } onGracefulShutdown: {
            // Ends the events once those already queued are read.
            intake.unsubscribe(subscription)
        }
    }

    /// Whether an event the webhook brought is one of the bot's channels, keeping track of
    /// what it is added to and removed from (and of deleted channels).
    private func follows(_ event: Event) -> Bool {
        guard let cid = event.cid else { return false }
        if event.isAddition(of: bot.user.id) {
            webhookChannels.withLock { _ = $0.insert(cid) }
            return true
        }
        return webhookChannels.withLock { channels in
            guard channels.contains(cid) else { return false }
            if event.isRemoval(of: bot.user.id) || event.type == .channelDeleted { channels.remove(cid) }
            return true
        }
    }
}
