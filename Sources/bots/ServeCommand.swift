import ArgumentParser
import ChatBotKit
import ChatDevServer
import ChatModels
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// `bots serve`: the embedded Stream-compatible dev server on its own.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the embedded Stream-compatible chat server (REST, WebSocket, SQLite, signed file links)."
    )

    @Option(help: "Port to listen on (0 picks a free one).")
    var port: Int = BotsConfiguration.Embedded().port

    @Option(help: "Address to bind.")
    var host: String = BotsConfiguration.Embedded().host

    @Option(help: "Folder for the SQLite database and uploaded files.")
    var data: String = BotsConfiguration.Embedded().dataDirectory

    @Option(help: "API key (default: $CHAT_API_KEY, then the dev key of bots.yaml).")
    var apiKey: String?

    @Option(help: "API secret (default: $CHAT_API_SECRET, then the dev secret of bots.yaml). Never printed.")
    var apiSecret: String?

    @Flag(help: "Also accept development tokens (signature \"devtoken\").")
    var dev = false

    @Option(help: "Lifetime of signed file links, like 2s, 10m, 14d.", transform: ServeCommand.duration)
    var linkLifetime: Duration = BotsConfiguration.Embedded().linkLifetime

    @Option(help: "Seconds between health checks on every WebSocket.", transform: ServeCommand.duration)
    var healthCheckInterval: Duration = BotsConfiguration.Embedded().healthCheckInterval

    @Option(
        help: "Largest upload, like 100MB or 2GB (default: 100MB, as the hosted service). Larger values are for benchmarks.",
        transform: ServeCommand.byteSize)
    var uploadSizeLimit: Int64?

    @OptionGroup var logging: LoggingOptions

    static func byteSize(_ text: String) throws -> Int64 {
        guard let size = ByteSizeText.parse(text), size > 0 else {
            throw ValidationError("\"\(text)\" is not a size; write a number and a unit: 512KB, 100MB, 2GB")
        }
        return size
    }

    static func duration(_ text: String) throws -> Duration {
        guard let duration = DurationText.parse(text) else {
            throw ValidationError("\"\(text)\" is not a duration; write a number and a unit: 500ms, 2s, 10m, 1h, 14d")
        }
        return duration
    }

    func run() async throws {
        logging.bootstrap()
        let configuration = DevServerConfiguration(
            host: host, port: port, dataDirectory: URL(fileURLWithPath: data, isDirectory: true),
            apiKey: apiKey ?? BotsConfiguration.Server.defaultAPIKey, apiSecret: apiSecret ?? BotsConfiguration.Server.defaultAPISecret,
            acceptsDevTokens: dev, linkLifetime: linkLifetime, healthCheckInterval: healthCheckInterval,
            defaultUploadSizeLimit: uploadSizeLimit ?? 100 * 1024 * 1024,
            initialFileUploadConfig: UploadRules(sizeLimit: uploadSizeLimit ?? 0), initialImageUploadConfig: UploadRules(sizeLimit: uploadSizeLimit ?? 0))
        let logger = Logger(label: "bots.serve")
        let server = try await DevServer(configuration: configuration, logger: logger)
        let group = ServiceGroup(
            configuration: .init(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let url = try await server.baseURL()
            say("Dev server listening on \(url.absoluteString)")
            say("API key: \(configuration.apiKey)")
            say("Data: \(configuration.dataDirectory.path)  Link lifetime: \(DurationText.format(linkLifetime))")
            try await tasks.waitForAll()
        }
        say("Dev server stopped")
    }
}
