import ChatBotKitConfiguration
import ArgumentParser
import ChatBotKit
import ChatDevServer
import ChatModels
import ChatTelemetry
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

    @Option(
        help: "Take the server's settings from this file's embedded: section, and its API key and secret from server: (the flags below override them).")
    var config: String?

    @Option(help: "Port to listen on (0 picks a free one; default: \(BotsConfiguration.Embedded().port)).")
    var port: Int?

    @Option(help: "Address to bind (default: \(BotsConfiguration.Embedded().host)).")
    var host: String?

    @Option(help: "Folder for the SQLite database and uploaded files (default: \(BotsConfiguration.Embedded().dataDirectory)).")
    var data: String?

    @Option(help: "API key (default: $CHAT_API_KEY, then the dev key of bots.yaml).")
    var apiKey: String?

    @Option(help: "API secret (default: $CHAT_API_SECRET, then the dev secret of bots.yaml). Never printed.")
    var apiSecret: String?

    @Flag(help: "Also accept development tokens (signature \"devtoken\").")
    var dev = false

    @Option(help: "A JavaScript module of your own payload renderers for the playground (with --dev).")
    var playgroundRenderers: String?

    @Option(help: "Lifetime of signed file links, like 2s, 10m, 14d (default: 14d).", transform: ServeCommand.duration)
    var linkLifetime: Duration?

    @Option(help: "Time between health checks on every WebSocket, like 10s (default: 10s).", transform: ServeCommand.duration)
    var healthCheckInterval: Duration?

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

    /// The settings: those of `--config` (or the defaults), then each flag given; and the
    /// file's `tracing:` section, if any.
    func serverConfiguration() throws(ConfigurationError) -> (DevServerConfiguration, BotsConfiguration.TracingExport?) {
        let file = try config.map { path throws(ConfigurationError) in try BotsConfiguration.load(contentsOf: path) }
        var configuration =
            if let file {
                DevServerConfiguration(file)
            } else {
                DevServerConfiguration(
                    BotsConfiguration.Embedded(), apiKey: BotsConfiguration.Server.defaultAPIKey,
                    apiSecret: BotsConfiguration.Server.defaultAPISecret)
            }
        if let host { configuration.host = host }
        if let port { configuration.port = port }
        if let data { configuration.dataDirectory = URL(fileURLWithPath: data, isDirectory: true) }
        if let apiKey { configuration.apiKey = apiKey }
        if let apiSecret { configuration.apiSecret = apiSecret }
        if dev { configuration.acceptsDevTokens = true }
        if let playgroundRenderers { configuration.playgroundRenderers = URL(fileURLWithPath: playgroundRenderers) }
        if let linkLifetime { configuration.linkLifetime = linkLifetime }
        if let healthCheckInterval { configuration.healthCheckInterval = healthCheckInterval }
        if let uploadSizeLimit {
            configuration.defaultUploadSizeLimit = uploadSizeLimit
            configuration.initialFileUploadConfig.sizeLimit = uploadSizeLimit
            configuration.initialImageUploadConfig.sizeLimit = uploadSizeLimit
        }
        return (configuration, file?.tracing)
    }

    func run() async throws {
        logging.bootstrap()
        let configuration: DevServerConfiguration
        let tracing: BotsConfiguration.TracingExport?
        do {
            (configuration, tracing) = try serverConfiguration()
        } catch {
            // As `bots run` does: located, for editors, and exit code 78 (a configuration error).
            FileHandle.standardError.write(Data("\(error.description)\n".utf8))
            throw ExitCode(78)
        }
        let logger = Logger(label: "bots.serve")
        // The server's spans join the bots' traces through their traceparent headers.
        let tracer = tracing.map { $0.bootstrapTracer(serviceSuffix: "-devserver", instance: BotService.ScaleOut.defaultNode) }
        let server = try await DevServer(configuration: configuration, logger: logger)
        let services: [any Service] = (tracer.map { [$0] } ?? []) + [server]
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let url = try await server.baseURL()
            say("Dev server listening on \(url.absoluteString)")
            if configuration.servesPlayground { say("Playground: \(url.absoluteString)/") }
            say("API key: \(configuration.apiKey)")
            say("Data: \(configuration.dataDirectory.path)  Link lifetime: \(DurationText.format(configuration.linkLifetime))")
            try await tasks.waitForAll()
        }
        say("Dev server stopped")
    }
}
