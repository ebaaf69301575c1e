import HTTPTypes
import Hummingbird
import Tracing

/// Gives every request a server span, a child of the caller's span when the request carries
/// its trace context (`traceparent`), so a bot's delivery, its `SendMessage` and the server's
/// work on it show as one trace. Named `METHOD /route` once the route is known; the query is
/// never recorded (it holds the API key).
struct RequestSpanMiddleware: RouterMiddleware {
    typealias Context = DevRequestContext

    /// The configuration's tracer; nil for the process's (`InstrumentationSystem`).
    let tracer: (any Tracer)?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let tracer = self.tracer ?? InstrumentationSystem.tracer
        var serviceContext = ServiceContext.current ?? .topLevel
        tracer.extract(request.headers, into: &serviceContext, using: HTTPFieldsExtractor())
        let method = request.method.rawValue
        return try await tracer.withSpan(method, context: serviceContext, ofKind: .server) { span in
            if span.isRecording {
                span.attributes["http.request.method"] = method
                span.attributes["url.path"] = request.uri.path
                if let client = request.headers[HTTPField.Name("X-Stream-Client")!] { span.attributes["user_agent.original"] = client }
            }
            let response = try await next(request, context)
            if span.isRecording {
                if let route = context.endpointPath {
                    span.operationName = "\(method) \(route)"
                    span.attributes["http.route"] = route
                }
                span.attributes["http.response.status_code"] = Int(response.status.code)
                if response.status.code >= 500 { span.setStatus(SpanStatus(code: .error)) }
            }
            return response
        }
    }
}

/// Reads trace headers out of a request's fields.
struct HTTPFieldsExtractor: Extractor {
    func extract(key: String, from fields: HTTPFields) -> String? {
        guard let name = HTTPField.Name(key) else { return nil }
        let values = fields[values: name]
        return values.isEmpty ? nil : values.joined(separator: ",")
    }
}
