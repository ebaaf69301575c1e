import ChatLocking
import Tracing

/// A span of an ``OTLPTracer``. A sampled span records until it ends and then joins the
/// tracer's export queue; a span the sampler left out records nothing, but still carries its
/// trace context, so the calls under it pass `traceparent` on with the sampled flag off.
public final class OTLPSpan: Span {
    /// The context the span was started in, with the span's ``TraceContext`` set.
    public let context: ServiceContext
    /// Whether the span records (its trace was sampled) and has not ended.
    public var isRecording: Bool { isSampled && !state.withLock(\.ended) }

    private let isSampled: Bool
    private let kind: SpanKind
    private let traceContext: TraceContext
    private let parent: TraceContext?
    private let startNanoseconds: UInt64
    private let state: Locked<State>
    private let onEnd: @Sendable (FinishedSpan) -> Void

    private struct State {
        var operationName: String
        var attributes = SpanAttributes()
        var events: [SpanEvent] = []
        var links: [FinishedSpan.Link] = []
        var status: SpanStatus?
        var ended = false
    }

    init(
        operationName: String, context: ServiceContext, kind: SpanKind, traceContext: TraceContext, parent: TraceContext?,
        startNanoseconds: UInt64, onEnd: @escaping @Sendable (FinishedSpan) -> Void
    ) {
        var context = context
        context.traceContext = traceContext
        self.context = context
        self.isSampled = traceContext.isSampled
        self.kind = kind
        self.traceContext = traceContext
        self.parent = parent
        self.startNanoseconds = startNanoseconds
        self.state = Locked(State(operationName: operationName))
        self.onEnd = onEnd
    }

    /// The span's name; it may change until the span ends (a server names it after its route).
    public var operationName: String {
        get { state.withLock(\.operationName) }
        set { state.withLock { $0.operationName = newValue } }
    }

    /// The span's attributes.
    public var attributes: SpanAttributes {
        get { state.withLock(\.attributes) }
        set {
            guard isSampled else { return }
            state.withLock { if !$0.ended { $0.attributes = newValue } }
        }
    }

    /// Sets the status; once it is ok it stays ok, as OpenTelemetry asks.
    public func setStatus(_ status: SpanStatus) {
        guard isSampled else { return }
        state.withLock { state in
            guard !state.ended, state.status?.code != .ok else { return }
            state.status = status
        }
    }

    /// Adds an event at its own time.
    public func addEvent(_ event: SpanEvent) {
        guard isSampled else { return }
        state.withLock { if !$0.ended { $0.events.append(event) } }
    }

    /// Adds an `exception` event with the error's type and description, in OpenTelemetry's
    /// conventions; the status is left to the caller.
    public func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant) {
        guard isSampled else { return }
        var eventAttributes = attributes
        eventAttributes["exception.type"] = String(reflecting: type(of: error))
        eventAttributes["exception.message"] = String(describing: error)
        addEvent(SpanEvent(name: "exception", at: instant(), attributes: eventAttributes))
    }

    /// Links a span of another trace (or of this one); a context without a trace is ignored.
    public func addLink(_ link: SpanLink) {
        guard isSampled, let linked = link.context.traceContext else { return }
        state.withLock { if !$0.ended { $0.links.append(FinishedSpan.Link(context: linked, attributes: link.attributes)) } }
    }

    /// Ends the span; a sampled span then waits in its tracer's queue. Ending twice does nothing.
    public func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        let finished: State? = state.withLock { state in
            guard !state.ended else { return nil }
            state.ended = true
            return state
        }
        guard isSampled, let finished else { return }
        onEnd(
            FinishedSpan(
                name: finished.operationName, kind: kind, context: traceContext, parentSpanID: parent?.spanID,
                parentIsRemote: parent?.isRemote ?? false, startNanoseconds: startNanoseconds,
                endNanoseconds: max(startNanoseconds, instant().nanosecondsSinceEpoch), attributes: finished.attributes,
                events: finished.events, links: finished.links, status: finished.status))
    }
}
