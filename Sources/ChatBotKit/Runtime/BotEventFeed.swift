import ChatModels
import Foundation

/// Where a bot's events come from when it has no WebSocket connection of its own: the app's
/// webhook requests, passed on to every bot that subscribed (ChatBotKitWebhooks' `WebhookIntake`).
///
/// ChatBotKit holds only this seam, so that a bot on the WebSocket builds without an HTTP server.
public protocol BotEventFeed: Sendable {
    /// Subscribes the bot named `name`: the events taken in from now on, until ``unsubscribe(_:)``.
    func subscribe(name: String) -> (id: UUID, events: AsyncStream<Event>)
    /// Ends the subscription `id`: its stream finishes once the events already queued are read.
    func unsubscribe(_ id: UUID)
}
