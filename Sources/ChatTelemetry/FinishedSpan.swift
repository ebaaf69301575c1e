import Tracing

/// What an ended span recorded, waiting in the queue to be exported.
struct FinishedSpan: Sendable {
    /// A link to another span, with its attributes.
    struct Link: Sendable {
        var context: TraceContext
        var attributes: SpanAttributes
    }

    var name: String
    var kind: SpanKind
    var context: TraceContext
    var parentSpanID: SpanID?
    var parentIsRemote: Bool
    var startNanoseconds: UInt64
    var endNanoseconds: UInt64
    var attributes: SpanAttributes
    var events: [SpanEvent]
    var links: [Link]
    var status: SpanStatus?
}
