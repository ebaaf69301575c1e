import ChatBotKitWebhooks
import ChatBotKit
import ChatClient
import ChatModels
import Foundation
import Logging

extension TestChatServer {
    /// Runs a `WebhookServer` taking custom command requests on a free loopback port for the
    /// duration of `body`, with the app's `custom_action_handler_url` pointing at it; bots given
    /// the intake as `BotService.Configuration.commands` answer their commands there.
    /// Afterwards the handler URL is cleared and the server stopped.
    ///
    /// ```swift
    /// try await server.withCustomCommands { commands in
    ///     var configuration = TestChatServer.testBotConfiguration
    ///     configuration.commands = commands
    ///     try await server.withBot(bot, channels: ["messaging:general"], configuration: configuration) { _ in … }
    /// }
    /// ```
    public func withCustomCommands<T: Sendable>(
        logger: Logger = Logger(label: "chatbotkit.test-commands"), _ body: (CustomCommandIntake) async throws -> T
    ) async throws -> T {
        let commands = CustomCommandIntake(apiKey: apiKey, apiSecret: apiSecret, logger: logger)
        let server = WebhookServer(intake: WebhookIntake(apiKey: apiKey, apiSecret: apiSecret, logger: logger), port: 0, commands: commands, logger: logger)
        let admin = client(as: "commands-admin")
        return try await withRunningServices([server], logger: logger) {
            try await admin.updateAppSettings(["custom_action_handler_url": .string(try await server.commandsURL() ?? "")])
            do {
                let result = try await body(commands)
                try await admin.updateAppSettings(["custom_action_handler_url": ""])
                return result
            } catch {
                try? await admin.updateAppSettings(["custom_action_handler_url": ""])
                throw error
            }
        }
    }
}
