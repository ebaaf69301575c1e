import ChatClient
import ChatModels
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

extension Bot {
    /// The server `run` uses by default: `$CHAT_URL`, else the embedded dev server of `make run`.
    public static var defaultServer: URL {
        URL(string: ProcessInfo.processInfo.environment["CHAT_URL"] ?? "http://127.0.0.1:8787") ?? URL(string: "http://127.0.0.1:8787")!
    }

    /// Runs this bot in `channels` until SIGINT or SIGTERM, then lets running handlers finish.
    /// The defaults reach the dev server of `make run`; for the hosted service pass its URL, or
    /// set `CHAT_URL`, `CHAT_API_KEY` and `CHAT_API_SECRET`.
    ///
    /// ```swift
    /// try await bot.run(channels: ["messaging:general"])
    /// ```
    public func run(
        channels: [ChannelId], server: URL = Bot.defaultServer,
        apiKey: String = ProcessInfo.processInfo.environment["CHAT_API_KEY"] ?? "dev-key",
        apiSecret: String = ProcessInfo.processInfo.environment["CHAT_API_SECRET"] ?? "a-dev-secret-of-at-least-32-bytes",
        configuration: BotService.Configuration = BotService.Configuration(), logger: Logger = Logger(label: "chatbotkit")
    ) async throws {
        let client = ChatClient(
            configuration: ChatClientConfiguration(apiKey: apiKey, baseURL: server, credentials: .apiSecret(apiSecret), userId: user.id),
            logger: logger)
        let service = BotService(bot: self, client: client, channels: channels, configuration: configuration, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [service], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
