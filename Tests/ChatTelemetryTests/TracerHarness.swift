import ChatTelemetry
import Foundation
import Logging
import ChatBotKitTesting

/// Runs `tracer` as a service for the duration of `body`, then stops it gracefully and waits
/// for its last export, as a ServiceGroup does at a process's end.
func withRunning<T: Sendable>(_ tracer: OTLPTracer, _ body: () async throws -> T) async throws -> T {
    try await withRunningServices([tracer], logger: Logger(label: "chatbotkit.test-tracer"), body)
}

extension OTLPTracerConfiguration {
    /// A configuration for `collector`, sending at once when asked and otherwise every `interval`.
    static func test(_ collector: URL, interval: Duration = .seconds(3600), sampling: Double = 1) -> OTLPTracerConfiguration {
        OTLPTracerConfiguration(
            endpoint: collector, headers: [("x-test-key", "k1")], serviceName: "tests", resourceAttributes: ["deployment.environment": "test"],
            samplingRatio: sampling, maximumBatchSize: 3, exportInterval: interval, exportTimeout: .seconds(5), shutdownDeadline: .seconds(5))
    }
}
