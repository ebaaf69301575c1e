import ChatClient
import ChatDevServer
import ChatLocking
import ChatModels
import CoreMetrics
import Foundation
import Logging
import ServiceLifecycle
import Tracing

/// The embedded dev server running in your test process, on a free loopback port, with its
/// own data folder (removed when the test ends).
///
/// ```swift
/// try await TestChatServer.withServer { server in
///     let client = server.client(as: "alice")
///     ...
/// }
/// ```
public final class TestChatServer: Sendable {
    /// The API key clients must use.
    public let apiKey = "test-key"
    /// The app secret (test-only).
    public let apiSecret = "test-secret-of-at-least-thirty-two-bytes"
    /// The data folder.
    public let dataDirectory: URL
    private let configuration: DevServerConfiguration
    private let running = Locked<(server: DevServer, group: ServiceGroup, task: Task<Void, any Error>)?>(nil)
    private let boundPort = Locked<Int>(0)
    private let logger: Logger

    private init(configure: (inout DevServerConfiguration) -> Void, logger: Logger) {
        dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("chatbotkit-test-\(UUID().uuidString)")
        var configuration = DevServerConfiguration(
            dataDirectory: dataDirectory, apiKey: "test-key", apiSecret: "test-secret-of-at-least-thirty-two-bytes",
            healthCheckInterval: .seconds(1))
        configure(&configuration)
        self.configuration = configuration
        self.logger = logger
    }

    /// Runs a server for the duration of `body`; `configure` may change the defaults (health
    /// checks every second, 14-day links).
    public static func withServer<T: Sendable>(
        logger: Logger = Logger(label: "chatbotkit.test-server"), configure: (inout DevServerConfiguration) -> Void = { _ in },
        _ body: (TestChatServer) async throws -> T
    ) async throws -> T {
        let harness = TestChatServer(configure: configure, logger: logger)
        try await harness.start(port: harness.configuration.port)
        do {
            let result = try await body(harness)
            await harness.stop()
            harness.removeData()
            return result
        } catch {
            await harness.stop()
            harness.removeData()
            throw error
        }
    }

    /// The running server.
    public var server: DevServer {
        guard let server = running.withLock({ $0?.server }) else { preconditionFailure("the test server is not running") }
        return server
    }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(boundPort.withLock { $0 })")! }

    /// A client acting as `userId`, authenticated with the app secret; it uploads through
    /// `cdnStorage` (the chat API's CDN by default), its metrics go to `metricsFactory` and its
    /// spans to `tracer` (else to the process's).
    public func client(
        as userId: String, cdnStorage: (any CDNStorage)? = nil, metricsFactory: (any MetricsFactory)? = nil, tracer: (any Tracer)? = nil,
        configure: (inout ChatClientConfiguration) -> Void = { _ in }
    ) -> ChatClient {
        var configuration = ChatClientConfiguration(apiKey: apiKey, baseURL: baseURL, credentials: .apiSecret(apiSecret), userId: userId)
        configure(&configuration)
        return ChatClient(configuration: configuration, cdnStorage: cdnStorage, metricsFactory: metricsFactory, tracer: tracer, logger: logger)
    }

    /// Stops the server and starts it again on the same port and data folder, as a deploy or a
    /// crash-and-restart would. Open WebSockets are closed.
    public func restart(downtime: Duration = .zero) async throws {
        let port = boundPort.withLock { $0 }
        await stop()
        if downtime > .zero { try await Task.sleep(for: downtime) }
        try await start(port: port)
    }

    private func start(port: Int) async throws {
        var configuration = self.configuration
        configuration.port = port
        let server = try await DevServer(configuration: configuration, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [server], gracefulShutdownSignals: [], logger: logger))
        let task = Task { try await group.run() }
        running.withLock { $0 = (server, group, task) }
        let bound = try await server.port()
        boundPort.withLock { $0 = bound }
    }

    /// Stops the server and waits until it has.
    public func stop() async {
        guard let current = running.withLock({ running in defer { running = nil }; return running }) else { return }
        await current.group.triggerGracefulShutdown()
        _ = try? await current.task.value
    }

    private func removeData() {
        try? FileManager.default.removeItem(at: dataDirectory)
    }
}
