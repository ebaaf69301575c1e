import CoreMetrics
import Metrics

/// What a tracer reports through swift-metrics: the spans it sent and the ones it dropped.
struct TelemetryMetrics: Sendable {
    /// Why spans were dropped.
    enum DropReason: String {
        /// The queue was full: the collector is slower than the spans, or down.
        case queueFull = "queue_full"
        /// Every attempt to send them failed, or the tracer stopped first.
        case exportFailed = "export_failed"
        /// The collector took the request but refused these spans (a partial success).
        case rejected
    }

    /// The factory given to the tracer; nil for the process's.
    let explicitFactory: (any MetricsFactory)?

    private var factory: any MetricsFactory { explicitFactory ?? MetricsSystem.factory }

    /// Spans the collector accepted, by the path they were posted to.
    func exported(_ count: Int, endpoint: String) {
        Counter(label: "chatbotkit_spans_exported_total", dimensions: [("endpoint", endpoint)], factory: factory).increment(by: count)
    }

    /// Spans that will never reach the collector, and why.
    func dropped(_ count: Int, reason: DropReason) {
        Counter(label: "chatbotkit_spans_dropped_total", dimensions: [("reason", reason.rawValue)], factory: factory).increment(by: count)
    }
}
