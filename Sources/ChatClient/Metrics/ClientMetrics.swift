import CoreMetrics
import Foundation
import Metrics

/// What a client reports through swift-metrics: HTTP calls, uploads, link refreshes and its event
/// connections. It reports to the factory it was given, else to the process's
/// (`MetricsSystem.bootstrap`), which does nothing until an app bootstraps one.
///
/// Every metric has at least one dimension: Prometheus keeps a name's series all labelled or all
/// unlabelled, and a later labelled one would stop the process.
struct ClientMetrics: Sendable {
    /// The factory given to the client; nil for the process's.
    let explicitFactory: (any MetricsFactory)?

    /// Where the metrics go now. The client's own calls look it up on each use; connections
    /// and bots take it when they are made (swift-metrics' rule: bootstrap first).
    var factory: any MetricsFactory { explicitFactory ?? MetricsSystem.factory }

    /// One finished HTTP call of `operation` (each attempt): its status (`transport_error` when
    /// no answer came) and how long it took.
    func requestFinished(_ operation: String, status: Int?, duration: Duration) {
        let statusText = status.map(String.init) ?? "transport_error"
        Counter(label: "chatbotkit_http_requests_total", dimensions: [("operation", operation), ("status", statusText)], factory: factory)
            .increment()
        Timer(label: "chatbotkit_http_request_duration_seconds", dimensions: [("operation", operation)], factory: factory)
            .record(duration: duration)
    }

    /// A call of `operation` about to be tried again, and why (`rate_limited`, `server_error`,
    /// `transport_error`).
    func retrying(_ operation: String, reason: String) {
        Counter(label: "chatbotkit_http_retries_total", dimensions: [("operation", operation), ("reason", reason)], factory: factory)
            .increment()
    }

    /// How long a call waited for a rate limit's reset.
    func waitedForRateLimit(_ operation: String, _ wait: Duration) {
        Timer(label: "chatbotkit_rate_limit_wait_seconds", dimensions: [("operation", operation)], factory: factory).record(duration: wait)
    }

    /// How long a call waited for its turn in its client's budget, by the rate that held it
    /// longest (`calls`, `messages`, `uploads`).
    func waitedForBudget(_ rate: String, _ wait: Duration) {
        Timer(label: "chatbotkit_budget_wait_seconds", dimensions: [("budget", rate)], factory: factory).record(duration: wait)
    }

    /// A call refused unsent because `rate` would have made it wait too long.
    func refusedOverBudget(_ rate: String) {
        Counter(label: "chatbotkit_budget_refusals_total", dimensions: [("budget", rate)], factory: factory).increment()
    }

    /// A file uploaded (`image` or `file`) with its size, or an upload that failed.
    func uploadFinished(kind: String, bytes: Int64?, duration: Duration) {
        let outcome = bytes == nil ? "failed" : "uploaded"
        Counter(label: "chatbotkit_uploads_total", dimensions: [("kind", kind), ("outcome", outcome)], factory: factory).increment()
        guard let bytes else { return }
        Counter(label: "chatbotkit_upload_bytes_total", dimensions: [("kind", kind)], factory: factory).increment(by: bytes)
        Timer(label: "chatbotkit_upload_duration_seconds", dimensions: [("kind", kind)], factory: factory).record(duration: duration)
    }

    /// An upload a ``DeduplicatingCDNStorage`` could have reused: `reused` (with the bytes not
    /// sent again), or why not: `expiring`, `gone`.
    func uploadReuse(kind: String, outcome: String, bytes: Int64) {
        Counter(label: "chatbotkit_upload_reuses_total", dimensions: [("kind", kind), ("outcome", outcome)], factory: factory).increment()
        guard bytes > 0 else { return }
        Counter(label: "chatbotkit_upload_bytes_reused_total", dimensions: [("kind", kind)], factory: factory).increment(by: bytes)
    }

    /// A file link refreshed before a download, because it had expired (`expired`) or the file
    /// host refused it (`forbidden`).
    func linkRefreshed(reason: String) {
        Counter(label: "chatbotkit_link_refreshes_total", dimensions: [("reason", reason)], factory: factory).increment()
    }

    /// A message re-read (`getMessage`) for fresh links; fewer than the refreshes when concurrent
    /// downloads share one read or a re-read message is reused.
    func messageReread() {
        Counter(label: "chatbotkit_message_rereads_total", dimensions: [("reason", "link_refresh")], factory: factory).increment()
    }
}
