import ChatBotKit
import ChatClient
import ChatModels
import CoreMetrics
import Logging
import ServiceLifecycle
import Tracing

/// A bot running against a ``TestChatServer``, as `bots run` would run it: its own user, its
/// own event connection, and a graceful shutdown.
public final class RunningBot: Sendable {
    /// The bot's service (its connection, its running handlers).
    public let service: BotService
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    init(service: BotService, logger: Logger) {
        self.service = service
        let group = ServiceGroup(configuration: .init(services: [service], gracefulShutdownSignals: [], logger: logger))
        self.group = group
        task = Task { try await group.run() }
    }

    /// Shuts the bot down gracefully (it stops taking messages and lets running handlers finish
    /// within the drain deadline) and returns when it has stopped; throws what stopped it, if
    /// anything did.
    public func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }
}

extension TestChatServer {
    /// The bot timing used in tests: heartbeats and health checks every second, 5 s to connect,
    /// 5 s to drain.
    public static var testBotConfiguration: BotService.Configuration {
        BotService.Configuration(
            drainDeadline: .seconds(5),
            connection: EventConnection.Configuration(
                heartbeatInterval: .seconds(1), serverHealthCheckInterval: .seconds(1), connectTimeout: .seconds(5)))
    }

    /// Runs `bot` in `channels` for the duration of `body`, ready (connected and watching)
    /// when `body` starts; stops it gracefully afterwards. Its metrics go to `metricsFactory`
    /// and its spans to `tracer` (else to the process's); `configureClient` may change its
    /// client's configuration (an outage tolerance, say).
    ///
    /// ```swift
    /// try await server.withBot(WorkoutBot.make(...), channels: ["messaging:general"]) { _ in
    ///     let sent = try await ann.send(workout)
    ///     let reply = try await ann.replies(to: sent, from: "workout-bot")
    /// }
    /// ```
    public func withBot<T: Sendable>(
        _ bot: Bot, channels: [ChannelId], configuration: BotService.Configuration = TestChatServer.testBotConfiguration,
        metricsFactory: (any MetricsFactory)? = nil, tracer: (any Tracer)? = nil,
        configureClient: (inout ChatClientConfiguration) -> Void = { _ in }, _ body: (RunningBot) async throws -> T
    ) async throws -> T {
        let running = try await startBot(
            bot, channels: channels, configuration: configuration, metricsFactory: metricsFactory, tracer: tracer, configureClient: configureClient)
        do {
            let result = try await body(running)
            try await running.stop()
            return result
        } catch {
            try? await running.stop()
            throw error
        }
    }

    /// Starts `bot` in `channels` and returns once it is ready (connected and watching); the
    /// caller stops it (``RunningBot/stop()``). For several bots, or several nodes of one
    /// scaled-out bot, started and stopped at different times.
    public func startBot(
        _ bot: Bot, channels: [ChannelId], configuration: BotService.Configuration = TestChatServer.testBotConfiguration,
        metricsFactory: (any MetricsFactory)? = nil, tracer: (any Tracer)? = nil,
        configureClient: (inout ChatClientConfiguration) -> Void = { _ in }
    ) async throws -> RunningBot {
        let client = client(as: bot.user.id, metricsFactory: metricsFactory, tracer: tracer, configure: configureClient)
        let service = BotService(bot: bot, client: client, channels: channels, configuration: configuration)
        let running = RunningBot(service: service, logger: service.logger)
        do {
            try await service.waitUntilReady()
            return running
        } catch {
            try? await running.stop()
            throw error
        }
    }
}
