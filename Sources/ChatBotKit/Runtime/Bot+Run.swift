import ChatClient
import ChatModels
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

extension Bot {
    /// The server `run` uses by default: `$CHAT_URL`, else the embedded dev server of `make run`.
    public static var defaultServer: URL {
        let embedded = BotsConfiguration.Embedded()
        let devServer = URL(string: "http://\(embedded.host):\(embedded.port)")!
        return ProcessInfo.processInfo.environment["CHAT_URL"].flatMap(URL.init(string:)) ?? devServer
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
        apiKey: String = BotsConfiguration.Server.defaultAPIKey, apiSecret: String = BotsConfiguration.Server.defaultAPISecret,
        configuration: BotService.Configuration = BotService.Configuration(), logger: Logger = Logger(label: "chatbotkit")
    ) async throws {
        let service = BotService(
            bot: self, server: server, apiKey: apiKey, apiSecret: apiSecret, channels: channels, configuration: configuration, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [service], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
