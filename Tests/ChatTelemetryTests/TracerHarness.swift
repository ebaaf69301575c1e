import ChatTelemetry
import Foundation
import Logging
import ServiceLifecycle

/// Runs `tracer` as a service for the duration of `body`, then stops it gracefully and waits
/// for its last export, as a ServiceGroup does at a process's end.
func withRunning<T: Sendable>(_ tracer: OTLPTracer, _ body: () async throws -> T) async throws -> T {
    let logger = Logger(label: "chatbotkit.test-tracer")
    let group = ServiceGroup(configuration: .init(services: [tracer], gracefulShutdownSignals: [], logger: logger))
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        do {
            let result = try await body()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return result
        } catch {
            tasks.cancelAll()
            throw error
        }
    }
}

extension OTLPTracerConfiguration {
    /// A configuration for `collector`, sending at once when asked and otherwise every `interval`.
    static func test(_ collector: URL, interval: Duration = .seconds(3600), sampling: Double = 1) -> OTLPTracerConfiguration {
        OTLPTracerConfiguration(
            endpoint: collector, headers: [("x-test-key", "k1")], serviceName: "tests", resourceAttributes: ["deployment.environment": "test"],
            samplingRatio: sampling, maximumBatchSize: 3, exportInterval: interval, exportTimeout: .seconds(5), shutdownDeadline: .seconds(5))
    }
}
