import ChatLocking
import ChatModels
import ChatServing
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// The embedded, Stream-compatible chat server: REST and WebSocket on one origin, SQLite for
/// state, a file store with signed, expiring links.
///
/// A `Service`: run it in a `ServiceGroup` (it stops gracefully on shutdown), or use
/// ``withRunning(_:logger:_:)`` in tests:
/// ```swift
/// try await DevServer.withRunning(DevServerConfiguration(dataDirectory: folder)) { server in
///     print(try await server.baseURL())
/// }
/// ```
public final class DevServer: Service, Sendable {
    /// The configuration it was started with.
    public let configuration: DevServerConfiguration
    let state: DevServerState
    private let application: Application<APIResponder<RouterResponder<DevRequestContext>>>
    private let listening = ListeningPort<DevServerError>()

    /// Opens the data folder and prepares the server; `run()` starts serving.
    public init(configuration: DevServerConfiguration, logger: Logger = Logger(label: "chatbotkit.devserver")) async throws {
        self.configuration = configuration
        let state = try await DevServerState(configuration: configuration, logger: logger)
        self.state = state
        let router = Router(context: DevRequestContext.self)
        router.add(middleware: RequestSpanMiddleware(tracer: configuration.tracer))
        router.add(middleware: RateLimitMiddleware(limiter: state.rateLimiter))
        router.add(middleware: ErrorEnvelopeMiddleware())
        router.add(middleware: FaultInjectionMiddleware(state: state))
        AppRoutes(state: state).register(on: router)
        ChannelRoutes(state: state).register(on: router)
        MessageRoutes(state: state).register(on: router)
        InteractionRoutes(state: state).register(on: router)
        UploadRoutes(state: state).register(on: router)
        CommandRoutes(state: state).register(on: router)
        ExportRoutes(state: state).register(on: router)
        PollRoutes(state: state).register(on: router)
        LocationRoutes(state: state).register(on: router)
        if configuration.servesPlayground {
            do {
                PlaygroundRoutes(state: state, site: try PlaygroundSite.bundled()).register(on: router)
            } catch {
                logger.warning("The playground is not served: \(error)")
            }
        }
        let endpoint = WebSocketEndpoint(state: state)
        let listening = self.listening
        application = Application(
            responder: APIResponder(inner: router.buildResponder()),
            server: .http1WebSocketUpgrade(
                configuration: .init(
                    http1: .init(additionalChannelHandlers: [ExpectContinueHandler()]),
                    ws: .init(maxFrameSize: 1 << 20, autoPing: .disabled)
                )
            ) { head, channel, _ in
                endpoint.shouldUpgrade(head, channel: channel)
            },
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "chatbotkit-dev"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                state.boundAddress.withLock { $0 = "http://\(configuration.host):\(port)" }
                listening.bound(to: port)
            },
            logger: logger
        )
    }

    /// Serves until the task is cancelled or a graceful shutdown is triggered; then closes every
    /// WebSocket (code 1001) and finishes in-flight requests.
    public func run() async throws {
        let failure: (any Error)?
        state.background.start { [state] in await state.reminders.run(state) }
        do {
            try await withGracefulShutdownHandler {
                try await application.run()
            } onGracefulShutdown: { [state] in
                Task { _ = await state.hub.disconnect(userId: nil, code: 1001, reason: "server shutting down") }
            }
            failure = nil
        } catch {
            failure = error
        }
        // However it ended, link previews still being fetched end before the server is stopped,
        // and the events already queued for the app's webhook get a few seconds to go.
        await state.background.cancelAndWait()
        await state.webhooks.finish(within: .seconds(5))
        switch failure {
        case nil:
            listening.failed(DevServerError(code: .stopped, message: "the dev server stopped before it was listening"))
        case let error? where error is CancellationError:
            listening.failed(DevServerError(code: .stopped, message: "the dev server was cancelled before it was listening"))
            throw error
        case let error?:
            guard !listening.isBound else { throw error }
            // Hummingbird throws the bind error; the callers waiting for the port get it too.
            let failure = DevServerError.cannotListen(host: configuration.host, port: configuration.port, because: error)
            listening.failed(failure)
            throw failure
        }
    }

    /// The port the server listens on, once it does (waits until then). Throws the reason when
    /// it cannot listen (``DevServerError``), or `CancellationError` when the task is cancelled.
    public func port() async throws -> Int {
        try await listening.port()
    }

    /// `http://host:port` once listening (see ``port()``).
    public func baseURL() async throws -> URL {
        URL(string: "http://\(configuration.host):\(try await port())")!
    }

    /// Runs a server for the duration of `body`, then shuts it down and waits for it to stop.
    public static func withRunning<T: Sendable>(
        _ configuration: DevServerConfiguration, logger: Logger = Logger(label: "chatbotkit.devserver"),
        _ body: @Sendable (DevServer) async throws -> T
    ) async throws -> T {
        let server = try await DevServer(configuration: configuration, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [server], gracefulShutdownSignals: [], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            _ = try await server.port()
            do {
                let result = try await body(server)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return result
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                throw error
            }
        }
    }

    // MARK: Test hooks

    /// Makes the next `count` requests whose path contains `pathContains` fail with `status`.
    public func injectFault(_ fault: InjectedFault) {
        state.faults.withLock { $0.append(fault) }
    }

    /// Sends a raw text frame to every connection of `userId`; returns how many got it.
    @discardableResult
    public func sendRawFrame(_ text: String, toUser userId: String) async -> Int {
        await state.hub.sendRaw(text, toUser: userId)
    }

    /// Closes every WebSocket of `userId` (all users when nil), as a network drop would.
    @discardableResult
    public func dropConnections(ofUser userId: String?) async -> Int {
        await state.hub.disconnect(userId: userId)
    }

    /// Closes `userId`'s WebSockets and turns its new ones away (closed with code 1013 before
    /// any health check) until called with `false`, as a network outage would.
    public func refuseConnections(ofUser userId: String, _ isRefused: Bool = true) async {
        await state.hub.setRefused(userId, isRefused)
        if isRefused { _ = await state.hub.disconnect(userId: userId) }
    }

    /// How many events the app's webhook took, how many it did not after every attempt, and how
    /// many were dropped because it was too far behind.
    public var webhookDeliveries: (delivered: Int, failed: Int, dropped: Int) {
        let counts = state.webhooks.counts.withLock { $0 }
        return (counts.delivered, counts.failed, counts.dropped)
    }

    /// How many API requests each endpoint took since this server started (429s included; the
    /// file host's routes are not API calls): what a test counts to check that a client batches.
    public var requestCounts: [EndpointName: Int] { state.rateLimiter.requestCounts }

    /// The users with a connection watching `cid`.
    public func watchers(of cid: ChannelId) async -> Set<String> {
        await state.hub.watchingUserIds(cid)
    }

    /// Whether `userId` has an open WebSocket connection.
    public func isOnline(_ userId: String) async -> Bool {
        await state.hub.onlineUserIds.contains(userId)
    }

    /// Stops sending anything (health checks included) to `userId`'s connections while keeping
    /// them open, as a hung server or a half-open connection would; `false` resumes.
    public func silence(_ userId: String, _ isSilenced: Bool = true) async {
        await state.hub.setSilenced(userId, isSilenced)
    }
}
