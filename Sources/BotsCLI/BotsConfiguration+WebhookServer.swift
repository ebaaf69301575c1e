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
        let beforeSend = BeforeSendIntake(apiKey: server.apiKey, apiSecret: server.apiSecret.value, logger: logger)
        return WebhookServer(
            intake: intake, host: endpoint.host, port: endpoint.port, path: endpoint.path, commands: commands, commandsPath: endpoint.commandsPath,
            beforeSend: beforeSend, beforeSendPath: endpoint.beforeSendPath, logger: logger)
    }

    /// Points the app on the server at `baseURL` (a dev server this process runs) at `webhook`
    /// for its events, at `commands` for its custom commands, and at `beforeSend` for its Before
    /// Message Send hook (nil turns a hook an earlier run set off).
    func pointApp(on baseURL: URL, at webhook: URL, commands: String?, beforeSend: String?) async throws {
        var settings: JSONObject = ["webhook_url": .string(webhook.absoluteString)]
        if let commands { settings["custom_action_handler_url"] = .string(commands) }
        settings["before_message_send_hook_url"] = .string(beforeSend ?? "")
        try await client(at: baseURL).updateAppSettings(settings)
    }

    /// How long the app's Before Message Send hook waits for an answer
    /// (`before_message_send_hook_attempt_timeout_ms`; 0 or unset: 1,500 ms).
    static func beforeSendTimeout(_ settings: AppSettings) -> Duration {
        let milliseconds = settings.raw["before_message_send_hook_attempt_timeout_ms"]?.intValue ?? 0
        return .milliseconds(milliseconds > 0 ? milliseconds : 1_500)
    }
}
