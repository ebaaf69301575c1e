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
    func runOverWebhook(_ intake: any BotEventFeed) async throws {
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
        let refused = Set(refusedChannels.map(\.cid))
        webhookChannels.replace(with: channels.filter { !refused.contains($0) } + members)
        let since = resume()
        let (webhookChannels, botUser) = (self.webhookChannels, bot.user.id)
        await withGracefulShutdownHandler {
            await handle(events.filter { $0.type == .userDeleted || webhookChannels.follows($0, botUser: botUser) }) { workers in
                if let since {
                    // What was posted while it was stopped, before what the webhook brings now
                    // (which waits in the subscription); what both bring is handled once.
                    do {
                        for event in try await connection.syncEvents(webhookChannels.sorted, since: since)
                        where webhookChannels.follows(event, botUser: botUser) {
                            await pipeline.take(event, workers: &workers)
                        }
                    } catch {
                        logger.error("Bot \(bot.name) could not catch up on what it missed: \(error)")
                    }
                }
                checkpointer?.following(since: followingSince)
                readiness.settle(.success(()))
                logger.info(
                    "Bot \(bot.name) is ready; it takes its events by webhook", metadata: ["channels": "\(webhookChannels.sorted.map(\.rawValue))"])
            }
        } onGracefulShutdown: {
            // Ends the events once those already queued are read.
            intake.unsubscribe(subscription)
        }
    }
}
