import ChatBotKit
import ChatClient
import ChatModels
import Foundation
import Logging

extension BotsConfiguration {
    /// A webhook server at `endpoint` for this configuration's app (its intake checks the app's
    /// key and secret): what `bots run` serves at `webhook:` and `bots simulate` on a free port.
    func webhookServer(at endpoint: WebhookEndpoint, logger: Logger) -> WebhookServer {
        let intake = WebhookIntake(apiKey: server.apiKey, apiSecret: server.apiSecret.value, logger: logger)
        return WebhookServer(intake: intake, host: endpoint.host, port: endpoint.port, path: endpoint.path, logger: logger)
    }

    /// Points the app on the server at `baseURL` (a dev server this process runs) at `webhook`.
    func pointApp(on baseURL: URL, at webhook: URL) async throws {
        try await client(at: baseURL).updateAppSettings(["webhook_url": .string(webhook.absoluteString)])
    }
}
