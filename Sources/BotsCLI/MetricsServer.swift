import ChatBotKitConfiguration
import ChatBotKit
import ChatDevServer
import ChatServing
import Foundation
import Hummingbird
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle

/// Serves the process's metrics (the bots', their clients' and connections') in Prometheus' text
/// format at `GET /metrics`, for `metrics:` in bots.yaml. It stops last, so the bots' drain can
/// still be watched.
final class MetricsServer: Service, Sendable {
    /// Where it listens.
    let endpoint: BotsConfiguration.MetricsEndpoint
    /// What it serves.
    let registry: PrometheusCollectorRegistry
    private let logger: Logger
    private let listening = ListeningPort<MetricsServerError>()

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
        let listening = self.listening
        let application = Application(
            router: router,
            configuration: .init(address: .hostname(endpoint.host, port: endpoint.port), serverName: "chatbotkit-metrics"),
            onServerRunning: { [endpoint] channel in listening.bound(to: channel.localAddress?.port ?? endpoint.port) },
            logger: logger)
        // However it ends, callers still waiting for the port learn that it never came (this is
        // ignored once it listened or failed to).
        defer { listening.failed(MetricsServerError(code: .stopped, message: "the metrics server stopped before it was listening")) }
        do {
            try await application.run()
        } catch let error where !listening.isBound && !(error is CancellationError) {
            // Hummingbird throws NIO's bind error; say which setting to change.
            let reason = ListenFailure.describe(error, host: endpoint.host, settings: "metrics.port in bots.yaml")
            let failure = MetricsServerError(
                code: .cannotListen, message: "cannot serve metrics on \(endpoint.host):\(endpoint.port): \(reason)")
            listening.failed(failure)
            throw failure
        }
    }

    /// `http://host:port/metrics` once it listens; throws why it cannot, or `CancellationError`.
    func url() async throws -> URL {
        URL(string: "http://\(endpoint.host):\(try await listening.port())/metrics")!
    }
}

/// Why the metrics are not served.
struct MetricsServerError: Error, CustomStringConvertible {
    /// What kind of failure.
    enum Code: String {
        /// The address could not be bound (in use, not permitted, not a local address).
        case cannotListen = "metrics.cannot_listen"
        /// The server stopped (shutdown, cancellation) before it was listening.
        case stopped = "metrics.stopped"
    }

    /// The kind.
    let code: Code
    /// What happened and what to do about it.
    let message: String

    /// `[code] message`.
    var description: String { "[\(code.rawValue)] \(message)" }
}
