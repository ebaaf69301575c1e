import Tracing

/// The key of the current span's ``TraceContext`` in a `ServiceContext`.
enum TraceContextKey: ServiceContextKey {
    typealias Value = TraceContext
    static var nameOverride: String? { "chatbotkit.trace-context" }
}

extension ServiceContext {
    /// The trace context of the span this context belongs to (or the remote parent one was
    /// extracted from); nil outside any trace.
    public var traceContext: TraceContext? {
        get { self[TraceContextKey.self] }
        set { self[TraceContextKey.self] = newValue }
    }
}
