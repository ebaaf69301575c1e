import ChatBotKit
import ChatDevServer
import Foundation
import Hummingbird
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle
import Synchronization

/// Serves the process's metrics (the bots', their clients' and connections') in Prometheus' text
/// format at `GET /metrics`, for `metrics:` in bots.yaml. It stops last, so the bots' drain can
/// still be watched.
final class MetricsServer: Service, Sendable {
    /// Where it listens.
    let endpoint: BotsConfiguration.MetricsEndpoint
    /// What it serves.
    let registry: PrometheusCollectorRegistry
    private let logger: Logger
    private let listening = AsyncStream<Result<Int, MetricsServerError>>.makeStream(bufferingPolicy: .bufferingNewest(1))
    private let isBound = Atomic(false)

    init(endpoint: BotsConfiguration.MetricsEndpoint, registry: PrometheusCollectorRegistry, logger: Logger) {
        self.endpoint = endpoint
        self.registry = registry
        self.logger = logger
    }

    func run() async throws {
        let router = Router()
        router.get("metrics") { [registry] _, _ -> Response in
            var text: [UInt8] = []
            registry.emit(into: &text)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: text)))
        }
        let continuation = listening.continuation
        let application = Application(
            router: router,
            configuration: .init(address: .hostname(endpoint.host, port: endpoint.port), serverName: "chatbotkit-metrics"),
            onServerRunning: { [self] channel in
                self.isBound.store(true, ordering: .sequentiallyConsistent)
                continuation.yield(.success(channel.localAddress?.port ?? self.endpoint.port))
                continuation.finish()
            },
            logger: logger)
        defer { continuation.finish() }
        do {
            try await application.run()
        } catch {
            guard !isBound.load(ordering: .sequentiallyConsistent), !(error is CancellationError) else { throw error }
            // Hummingbird throws NIO's bind error; say which setting to change.
            let reason = ListenFailure.describe(error, host: endpoint.host, settings: "metrics.port in bots.yaml")
            let failure = MetricsServerError(
                code: .cannotListen, message: "cannot serve metrics on \(endpoint.host):\(endpoint.port): \(reason)")
            continuation.yield(.failure(failure))
            throw failure
        }
    }

    /// `http://host:port/metrics` once it listens; throws why it cannot, or `CancellationError`.
    func url() async throws -> URL {
        for await outcome in listening.stream {
            return URL(string: "http://\(endpoint.host):\(try outcome.get())/metrics")!
        }
        throw CancellationError()
    }
}

/// Why the metrics are not served.
struct MetricsServerError: Error, CustomStringConvertible {
    /// What kind of failure.
    enum Code: String {
        /// The address could not be bound (in use, not permitted, not a local address).
        case cannotListen = "metrics.cannot_listen"
    }

    /// The kind.
    let code: Code
    /// What happened and what to do about it.
    let message: String

    /// `[code] message`.
    var description: String { "[\(code.rawValue)] \(message)" }
}
