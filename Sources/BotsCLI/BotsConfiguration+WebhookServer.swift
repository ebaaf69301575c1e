import ChatBotKitWebhooks
import ChatBotKitConfiguration
import ChatBotKit
import ChatClient
import ChatModels
import Foundation
import Logging

extension BotsConfiguration {
    /// A webhook server at `endpoint` for this configuration's app (its intakes check the app's
    /// key and secret), taking events and custom command requests: what `bots run` serves at
    /// `webhook:` and `bots simulate` on a free port.
    func webhookServer(at endpoint: WebhookEndpoint, logger: Logger) -> WebhookServer {
        let intake = WebhookIntake(apiKey: server.apiKey, apiSecret: server.apiSecret.value, logger: logger)
        let commands = CustomCommandIntake(
            apiKey: server.apiKey, apiSecret: server.apiSecret.value, answerDeadline: endpoint.commandsDeadline, logger: logger)
        return WebhookServer(
            intake: intake, host: endpoint.host, port: endpoint.port, path: endpoint.path, commands: commands, commandsPath: endpoint.commandsPath,
            logger: logger)
    }

    /// Points the app on the server at `baseURL` (a dev server this process runs) at `webhook`
    /// for its events and at `commands` for its custom commands.
    func pointApp(on baseURL: URL, at webhook: URL, commands: String?) async throws {
        var settings: JSONObject = ["webhook_url": .string(webhook.absoluteString)]
        if let commands { settings["custom_action_handler_url"] = .string(commands) }
        try await client(at: baseURL).updateAppSettings(settings)
    }
}
