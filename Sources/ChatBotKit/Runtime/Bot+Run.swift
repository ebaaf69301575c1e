import ChatClient
import ChatModels
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

extension Bot {
    /// The address the embedded dev server of `make run` binds unless bots.yaml says otherwise.
    public static let devServerHost = "127.0.0.1"
    /// The port the embedded dev server of `make run` listens on unless bots.yaml says otherwise.
    public static let devServerPort = 8787

    /// The server `run` uses by default: `$CHAT_URL`, else the embedded dev server of `make run`.
    public static var defaultServer: URL {
        let devServer = URL(string: "http://\(devServerHost):\(devServerPort)")!
        return ProcessInfo.processInfo.environment["CHAT_URL"].flatMap(URL.init(string:)) ?? devServer
    }

    /// The key used when none is given: `$CHAT_API_KEY`, else the dev key of bots.yaml and the
    /// embedded server.
    public static var defaultAPIKey: String { ProcessInfo.processInfo.environment["CHAT_API_KEY"] ?? "dev-key" }

    /// The secret used when none is given: `$CHAT_API_SECRET`, else the dev secret of bots.yaml
    /// and the embedded server.
    public static var defaultAPISecret: String {
        ProcessInfo.processInfo.environment["CHAT_API_SECRET"] ?? "a-dev-secret-of-at-least-32-bytes"
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
        apiKey: String = Bot.defaultAPIKey, apiSecret: String = Bot.defaultAPISecret,
        configuration: BotService.Configuration = BotService.Configuration(), logger: Logger = Logger(label: "chatbotkit")
    ) async throws {
        let service = BotService(
            bot: self, server: server, apiKey: apiKey, apiSecret: apiSecret, channels: channels, configuration: configuration, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [service], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
