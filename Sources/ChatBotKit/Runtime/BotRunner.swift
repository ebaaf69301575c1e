import ChatClient
import ChatLocking
import ChatModels
import Logging
import ServiceLifecycle

/// Runs bots side by side, each as its own service with its own user and connection. On a
/// graceful shutdown (SIGINT or SIGTERM when run by a `ServiceGroup` with those signals) every
/// bot stops taking messages and lets its running handlers finish.
///
/// While it runs, bots can be started (``start(_:)``) and stopped (``stop(botNamed:)``) one by
/// one, as `bots run` does when `bots.yaml` changes.
public final class BotRunner: Service, Sendable {
    private struct RunningBot {
        let service: BotService
        /// A group of its own, so the bot can be shut down gracefully alone.
        let group: ServiceGroup
    }

    private struct State {
        var bots: [RunningBot] = []
        var stopWaiters: [ObjectIdentifier: [CheckedContinuation<Void, Never>]] = [:]
    }

    private let initialServices: [BotService]
    private let state = Locked(State())
    private let startRequests: AsyncStream<RunningBot>
    private let startRequestsContinuation: AsyncStream<RunningBot>.Continuation
    let logger: Logger

    /// A runner for `services`.
    public init(services: [BotService], logger: Logger = Logger(label: "chatbotkit.runner")) {
        initialServices = services
        self.logger = logger
        (startRequests, startRequestsContinuation) = AsyncStream.makeStream()
    }

    /// The bots running now, in the order they started.
    public var services: [BotService] { state.withLock { $0.bots.map(\.service) } }

    /// The running bot named `name`.
    public func service(named name: String) -> BotService? {
        state.withLock { $0.bots.first { $0.service.bot.name == name }?.service }
    }

    /// Runs every bot until shutdown. A bot given at `init` that fails to start stops the
    /// others, and so does any bot that fails after it was ready.
    public func run() async throws {
        defer { startRequestsContinuation.finish() }
        try await withThrowingDiscardingTaskGroup { group in
            for service in initialServices {
                let running = try register(service)
                group.addTask { try await self.run(running, isInitial: true) }
            }
            // Ends on shutdown, on cancellation, and when a bot's failure stops the runner.
            for await running in startRequests.cancelOnGracefulShutdown() {
                group.addTask { try await self.run(running, isInitial: false) }
            }
        }
        logger.info("All bots stopped")
    }

    /// Waits until every bot given at `init` is connected and watching its channels; throws if
    /// one cannot start.
    public func waitUntilReady() async throws {
        for service in initialServices { try await service.waitUntilReady() }
    }

    /// Starts `service` next to the running bots and returns once it is ready. If it cannot
    /// start, it throws why and the other bots go on.
    public func start(_ service: BotService) async throws {
        let name = service.bot.name
        guard case .enqueued = startRequestsContinuation.yield(try register(service, unlessNameIsTaken: true)) else {
            unregister(service)
            throw BotError(code: .startFailed, message: "bot \(name) cannot start: the bots are stopping")
        }
        try await service.waitUntilReady()
    }

    /// Stops the bot named `name` as a shutdown would (it stops taking messages and lets its
    /// running handlers finish) and returns once it has stopped; false if none runs.
    @discardableResult
    public func stop(botNamed name: String) async -> Bool {
        guard let running = state.withLock({ $0.bots.first { $0.service.bot.name == name } }) else { return false }
        await running.group.triggerGracefulShutdown()
        let id = ObjectIdentifier(running.service)
        await withCheckedContinuation { continuation in
            let stopped = state.withLock { state -> Bool in
                guard state.bots.contains(where: { ObjectIdentifier($0.service) == id }) else { return true }
                state.stopWaiters[id, default: []].append(continuation)
                return false
            }
            if stopped { continuation.resume() }
        }
        return true
    }

    /// Adds `service` to the running bots; with `unlessNameIsTaken`, only if no running bot has
    /// its name, checked under the same lock so two starts of one name cannot both pass.
    private func register(_ service: BotService, unlessNameIsTaken: Bool = false) throws(BotError) -> RunningBot {
        let running = RunningBot(service: service, group: ServiceGroup(services: [service], logger: service.logger))
        let name = service.bot.name
        let isTaken = state.withLock { state in
            if unlessNameIsTaken, state.bots.contains(where: { $0.service.bot.name == name }) { return true }
            state.bots.append(running)
            return false
        }
        if isTaken { throw BotError(code: .configuration, message: "a bot named \(name) is already running; stop it first") }
        return running
    }

    private func unregister(_ service: BotService) {
        let id = ObjectIdentifier(service)
        let waiters = state.withLock { state in
            state.bots.removeAll { ObjectIdentifier($0.service) == id }
            return state.stopWaiters.removeValue(forKey: id) ?? []
        }
        for waiter in waiters { waiter.resume() }
    }

    private func run(_ running: RunningBot, isInitial: Bool) async throws {
        defer { unregister(running.service) }
        do {
            try await running.group.run()
        } catch where !isInitial && !running.service.becameReady {
            // Whoever started it learns why from `waitUntilReady`; the others go on.
            running.service.logger.error("Bot \(running.service.bot.name) could not start: \(error)")
        } catch {
            startRequestsContinuation.finish()
            throw error
        }
    }
}
