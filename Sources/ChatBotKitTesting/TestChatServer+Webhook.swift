import ChatBotKitWebhooks
import ChatBotKit
import ChatClient
import ChatModels
import Foundation
import Logging

extension TestChatServer {
    /// Runs a `WebhookServer` on a free loopback port for the duration of `body`, with the
    /// app's `webhook_url` pointing at it (its bodies gzipped when `gzip`), so the server posts
    /// every event there; bots given `.webhook(intake)` as their `BotService.EventSource` take
    /// them. Afterwards the webhook is turned off and the server stopped.
    ///
    /// ```swift
    /// try await server.withWebhook { intake in
    ///     var configuration = TestChatServer.testBotConfiguration
    ///     configuration.events = .webhook(intake)
    ///     try await server.withBot(bot, channels: ["messaging:general"], configuration: configuration) { _ in … }
    /// }
    /// ```
    public func withWebhook<T: Sendable>(
        gzip: Bool = false, events: [String] = [], logger: Logger = Logger(label: "chatbotkit.test-webhook"),
        _ body: (WebhookIntake) async throws -> T
    ) async throws -> T {
        let intake = WebhookIntake(apiKey: apiKey, apiSecret: apiSecret, logger: logger)
        let webhook = WebhookServer(intake: intake, port: 0, logger: logger)
        let admin = client(as: "webhook-admin")
        return try await withRunningServices([webhook], logger: logger) {
            try await admin.updateAppSettings([
                "webhook_url": .string(try await webhook.url().absoluteString),
                "webhook_events": .array(events.map(RawJSON.string)),
                "webhook_compression_algorithm": .string(gzip ? "gzip" : ""),
            ])
            do {
                let result = try await body(intake)
                try await admin.updateAppSettings(["webhook_url": ""])
                return result
            } catch {
                try? await admin.updateAppSettings(["webhook_url": ""])
                throw error
            }
        }
    }
}
