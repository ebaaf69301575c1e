import Foundation
import Tracing

extension ChatClient {
    /// Runs one call, every attempt of it, in a client span named after its operation
    /// (`SendMessage`, `UploadFile`, `DownloadFile`), a child of the task's current span (a
    /// bot's delivery, when a handler makes the call). Attributes follow OpenTelemetry's HTTP
    /// client conventions; only the path is recorded, never the query (which holds the API key
    /// and a link's signature). `url` is only worked out when the span records.
    func traced<T>(_ operation: String, method: String, url: @autoclosure () -> URL?, _ body: (any Span) async throws -> T) async throws -> T {
        try await tracer.withSpan(operation, ofKind: .client) { span in
            if span.isRecording {
                let url = url()
                span.updateAttributes { attributes in
                    attributes["http.request.method"] = method
                    if let url {
                        attributes["url.path"] = url.path
                        attributes["server.address"] = url.host
                    }
                }
            }
            return try await body(span)
        }
    }
}

extension Span {
    /// Records an attempt's answer (nil when none came) and how many attempts came before it.
    func recordAttempt(_ attempt: Int, status: Int?) {
        guard isRecording else { return }
        if let status { attributes["http.response.status_code"] = status }
        if attempt > 1 { attributes["http.request.resend_count"] = attempt - 1 }
    }
}
