import ChatBotKitWebhooks
import ChatBotKitConfiguration
import ArgumentParser
import ChatBotKit
import ChatBotKitPostgres
import ChatClient
import ChatDevServer
import ChatModels
import ChatTelemetry
import CoreMetrics
import Foundation
import Logging
import Prometheus
import ServiceLifecycle
import UnixSignals

/// `bots run`: the main job. Starts the embedded dev server when `server.url` is absent, then
/// every bot of the configuration; stops cleanly on SIGINT/SIGTERM.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Run the bots of a configuration (and the embedded dev server when no server.url is set).")

    @Option(help: "The configuration file.")
    var config: String = "bots.yaml"

    @Flag(help: "Check the configuration and exit.")
    var check = false

    @Flag(help: "Apply changes of the configuration file as it is saved (SIGHUP always applies them).")
    var watch = false

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        logging.bootstrap()
        let logger = Logger(label: "bots.run")
        let configuration: BotsConfiguration
        let bots: [(BotsConfiguration.BotEntry, Bot)]
        let loadedStamp = FileStamp(config)
        do {
            configuration = try BotsConfiguration.load(contentsOf: config)
            bots = try RunCommand.makeBots(configuration, logger: logger)
        } catch {
            FileHandle.standardError.write(Data("\(error.description)\n".utf8))
            throw ExitCode(78)
        }
        if check {
            say("\(config): \(counted(bots.count, "bot")), configuration is valid")
            return
        }
        // Before any client or server exists, like the metrics: they take the process's tracer.
        let tracer = configuration.tracing.map { $0.bootstrapTracer(instance: configuration.scaleOut?.nodeName ?? BotService.ScaleOut.defaultNode) }
        let devServer: DevServer? =
            if configuration.server.url == nil {
                try await DevServer(configuration: DevServerConfiguration(configuration), logger: Logger(label: "bots.devserver"))
            } else {
                nil
            }
        // The leases that share the bots' channels out with the other nodes (scale_out:).
        let leaseStore: PostgresChannelLeaseStore?
        let scaleOut: BotService.ScaleOut?
        if let section = configuration.scaleOut {
            do {
                let store = PostgresChannelLeaseStore(connection: try PostgresConnectionString(section.postgres.value), logger: Logger(label: "bots.leases"))
                leaseStore = store
                scaleOut = BotService.ScaleOut(store: store, node: section.nodeName, leaseDuration: section.lease)
            } catch {
                FileHandle.standardError.write(Data("\(config): scale_out.postgres: \(error.message)\n".utf8))
                throw ExitCode(78)
            }
        } else {
            (leaseStore, scaleOut) = (nil, nil)
        }
        let metricsServer = configuration.metrics.map { endpoint in
            // Before any client exists: clients, connections and bots report to the process's factory.
            let registry = PrometheusCollectorRegistry()
            MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
            return MetricsServer(endpoint: endpoint, registry: registry, logger: Logger(label: "bots.metrics"))
        }
        // The app's webhook requests, for the bots that take their events that way (events: webhook),
        // now or after a reload: served whenever the file has a webhook: section.
        let webhookServer = configuration.webhook.map { configuration.webhookServer(at: $0, logger: Logger(label: "bots.webhook")) }
        if webhookServer == nil, let judge = bots.first(where: { $0.1.judgesBeforeSending }) {
            logger.warning(
                "Bot \(judge.0.name) judges messages before they are sent, and bots.yaml has no webhook: section to take the app's Before Message Send hook at; its messages are judged once posted instead. Add one, such as webhook: { port: 8789 }")
        }
        let intake = webhookServer?.intake
        let commands = webhookServer?.commands
        let config = self.config
        let watch = self.watch
        let hangUps = await UnixSignalsSequence(trapping: .sighup)
        let botsService = BotsAfterServer(
            server: devServer, serverURL: configuration.server.url, metrics: metricsServer, webhook: webhookServer,
            answersCommands: bots.contains { !$0.1.customCommands.isEmpty }, judgesBeforeSending: bots.contains { $0.1.judgesBeforeSending },
            configuration: configuration,
            makeRunner: { url in
                RunCommand.runner(
                    for: bots, configuration: configuration, baseURL: url, scaleOut: scaleOut, intake: intake, commands: commands, logger: logger)
            },
            makeReloader: { runner, url in
                let logger = Logger(label: "bots.reload")
                return BotsReloader(
                    path: config, loadedStamp: loadedStamp, watchesFile: watch, hangUps: hangUps, running: configuration, runner: runner,
                    makeBot: { entry, configuration in try RunCommand.makeBot(entry, configuration: configuration, logger: logger) },
                    makeService: { entry, bot, configuration in
                        RunCommand.service(
                            for: entry, bot: bot, configuration: configuration, baseURL: url, scaleOut: scaleOut, intake: intake, commands: commands)
                    },
                    logger: logger)
            },
            onReady: { url, metricsURL, webhookURL, commandsURL in
                RunCommand.printWelcome(
                    configuration, bots: bots.map { $0.0 }, schedules: Dictionary(uniqueKeysWithValues: bots.map { ($0.0.name, $0.1.schedules) }),
                    baseURL: url, metricsURL: metricsURL, webhookURL: webhookURL, devServer: devServer != nil,
                    customCommands: commands?.commandNames ?? [], commandsURL: commandsURL, config: config, watch: watch)
            })
        // Services stop in reverse order: the bots drain their handlers while the server still
        // answers and then give their leases up, the metrics are served until the end, and the
        // tracer sends the spans of all that last.
        let optional: [(any Service)?] = [tracer, metricsServer, leaseStore, devServer, webhookServer]
        let services: [any Service] = optional.compactMap { $0 } + [botsService]
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        say("Bots stopped.")
    }

    static func makeBots(
        _ configuration: BotsConfiguration, only entries: [BotsConfiguration.BotEntry]? = nil, pathRoot: URL? = nil, logger: Logger
    ) throws(ConfigurationError) -> [(BotsConfiguration.BotEntry, Bot)] {
        var bots: [(BotsConfiguration.BotEntry, Bot)] = []
        for entry in entries ?? configuration.bots {
            bots.append((entry, try makeBot(entry, configuration: configuration, pathRoot: pathRoot, logger: logger)))
        }
        return bots
    }

    /// The bot of one entry, built by its kind; any problem is located in the file. With a
    /// `pathRoot`, the bot's files are all inside it (see ``BotKindEnvironment/pathRoot``).
    static func makeBot(
        _ entry: BotsConfiguration.BotEntry, configuration: BotsConfiguration, pathRoot: URL? = nil, logger: Logger
    ) throws(ConfigurationError) -> Bot {
        let dataDirectory = BotKindEnvironment.resolve(configuration.embedded.dataDirectory, under: pathRoot).deletingLastPathComponent()
        let kinds = BotsCLI.kinds
        guard let kind = kinds[entry.kind] else {
            let node = entry.node["kind"] ?? entry.node
            let known = kinds.isEmpty ? "\(BotsCLI.commandName) knows none" : "known kinds: \(kinds.keys.sorted().joined(separator: ", "))"
            throw node.error(.badValue, "unknown bot kind \"\(entry.kind)\"; \(known)")
        }
        do {
            let fellowBots = Set(configuration.bots.map(\.user)).subtracting([entry.user])
            let environment = BotKindEnvironment(
                dataDirectory: dataDirectory, logger: logger, pathRoot: pathRoot, llm: configuration.llm, fellowBots: fellowBots)
            let bot = try kind.makeBot(entry, environment: environment)
            // Outermost, so that a skipped message costs the kind's middleware nothing either.
            if let rule = entry.senderLimit { bot.useOutermost(SenderLimit(rule)) }
            return bot
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw entry.node.error(.badValue, "bot \(entry.name) could not be set up: \(FileErrorText.describe(error))")
        }
    }

    static func runner(
        for bots: [(BotsConfiguration.BotEntry, Bot)], configuration: BotsConfiguration, baseURL: URL, pathRoot: URL? = nil,
        scaleOut: BotService.ScaleOut? = nil, intake: WebhookIntake? = nil, commands: CustomCommandIntake? = nil, logger: Logger
    ) -> BotRunner {
        BotRunner(
            services: bots.map {
                service(
                    for: $0, bot: $1, configuration: configuration, baseURL: baseURL, pathRoot: pathRoot, scaleOut: scaleOut, intake: intake,
                    commands: commands)
            }, logger: logger)
    }

    /// The service running one entry's bot on `baseURL` (its checkpoint inside `pathRoot`, if
    /// given), sharing its channels out with the other nodes through `scaleOut`, if given, and
    /// taking its events from `intake` when its entry says `events: webhook` (without an
    /// intake, as `bots simulate` runs it, over a WebSocket); its custom commands are answered
    /// through `commands`, if given.
    static func service(
        for entry: BotsConfiguration.BotEntry, bot: Bot, configuration: BotsConfiguration, baseURL: URL, pathRoot: URL? = nil,
        scaleOut: BotService.ScaleOut? = nil, intake: WebhookIntake? = nil, commands: CustomCommandIntake? = nil
    ) -> BotService {
        let events: BotService.EventSource =
            if entry.events == .webhook, let intake { .webhook(intake) } else { .webSocket }
        // Scaled out, the nodes share the conversations (the PostgreSQL lease store keeps them),
        // so one goes on whichever node its channel moves to; alone, a bot keeps its own in a file.
        if let shared = scaleOut?.store as? any ConversationStore {
            bot.conversationStore = shared
        } else {
            bot.conversationStore = FileConversationStore(
                file: configuration.conversationsFile(for: entry, under: pathRoot), logger: Logger(label: "bots.\(entry.name)"))
        }
        let catchUp = entry.catchUp.map {
            BotService.CatchUp(
                checkpointFile: configuration.checkpointFile(for: entry, under: pathRoot), maximumAge: $0,
                deadLetterFile: configuration.deadLetterFile(for: entry, under: pathRoot))
        }
        return BotService(
            bot: bot, server: baseURL, apiKey: configuration.server.apiKey, apiSecret: configuration.server.apiSecret.value,
            channels: entry.channels,
            configuration: BotService.Configuration(
                maximumConcurrentChannels: entry.concurrency, drainDeadline: entry.drainDeadline, catchUp: catchUp, scaleOut: scaleOut,
                events: events, commands: commands),
            cdnStorage: entry.reusesUploads ? DeduplicatingCDNStorage(recordFile: configuration.uploadRecordFile(for: entry, under: pathRoot)) : nil,
            rateBudget: entry.rateBudget, outageTolerance: entry.outageTolerance, logger: Logger(label: "bots.\(entry.name)"))
    }
}

/// Starts the bots once the embedded server (if any) is listening, on the port it got, and
/// says how to reach them once every bot is ready.
struct BotsAfterServer: Service {
    let server: DevServer?
    let serverURL: URL?
    let metrics: MetricsServer?
    let webhook: WebhookServer?
    /// Whether any bot answers custom commands (a hosted app without a handler URL is warned of).
    let answersCommands: Bool
    /// Whether any bot judges messages before they are sent (the embedded server's hook is
    /// pointed at the webhook server only then; a hosted app without one is warned of).
    let judgesBeforeSending: Bool
    let configuration: BotsConfiguration
    let makeRunner: @Sendable (URL) -> BotRunner
    let makeReloader: @Sendable (BotRunner, URL) -> BotsReloader
    let onReady: @Sendable (URL, URL?, URL?, String?) -> Void

    func run() async throws {
        let url: URL
        if let server {
            url = try await server.baseURL()
        } else if let serverURL {
            url = serverURL
        } else {
            preconditionFailure("either the embedded server or server.url is set")
        }
        let metricsURL = try await metrics?.url()
        let webhookURL = try await webhook?.url()
        let commandsURL = try await webhook?.commandsURL()
        let runner = makeRunner(url)
        // The before-send intake asks the bots the runner runs now, reloads included.
        webhook?.beforeSend?.follow(runner)
        if let webhookURL { try await pointWebhook(at: webhookURL, commands: commandsURL, server: url) }
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { try await runner.run() }
            group.addTask {
                // A bot that cannot start makes the runner fail with the reason; no welcome then.
                guard (try? await runner.waitUntilReady()) != nil else { return }
                onReady(url, metricsURL, webhookURL, commandsURL)
                await makeReloader(runner, url).run()
            }
        }
    }

    /// Points the embedded server's app at the webhook server. The hosted service's app is the
    /// user's to set (to a public https address, which this process cannot know); it is only
    /// read, to say when it posts nowhere.
    private func pointWebhook(at webhookURL: URL, commands commandsURL: String?, server url: URL) async throws {
        let beforeSendURL = try await webhook?.beforeSendURL()
        if server != nil {
            try await configuration.pointApp(on: url, at: webhookURL, commands: commandsURL, beforeSend: judgesBeforeSending ? beforeSendURL : nil)
        }
        guard let settings = try? await configuration.client(at: url).appSettings(refresh: true) else { return }
        // The intake keeps its handlers' deadline inside the app's wait.
        webhook?.beforeSend?.attemptTimeout = BotsConfiguration.beforeSendTimeout(settings)
        if server == nil {
            let logger = Logger(label: "bots.webhook")
            if (settings.raw["webhook_url"]?.stringValue ?? "").isEmpty {
                logger.warning(
                    "The app has no webhook_url, so the bots with events: webhook get nothing; set it (Dashboard or PATCH /app) to the public https address that reaches \(webhookURL.absoluteString)")
            }
            if answersCommands, let commandsURL, (settings.raw["custom_action_handler_url"]?.stringValue ?? "").isEmpty {
                logger.warning(
                    "The app has no custom_action_handler_url, so the bots' custom commands are not answered; set it (Dashboard or PATCH /app) to the public https address that reaches \(commandsURL)")
            }
            if judgesBeforeSending, let beforeSendURL, (settings.raw["before_message_send_hook_url"]?.stringValue ?? "").isEmpty {
                logger.warning(
                    "The app has no before_message_send_hook_url, so messages are not judged before they are sent; set it (Dashboard or PATCH /app) to the public https address that reaches \(beforeSendURL)")
            }
        }
    }
}
