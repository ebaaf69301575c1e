import Tracing

extension OTLPTracer {
    /// Writes the context's span into `traceparent` (and `tracestate`, when it has one).
    public func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {
        guard let trace = context.traceContext else { return }
        injector.inject(trace.traceparent, forKey: "traceparent", into: &carrier)
        if let state = trace.traceState { injector.inject(state, forKey: "tracestate", into: &carrier) }
    }

    /// Reads a remote parent from `traceparent` and `tracestate`; a malformed header is ignored,
    /// as W3C Trace Context asks (the span then starts a trace of its own).
    public func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {
        guard let header = extractor.extract(key: "traceparent", from: carrier),
            let trace = TraceContext(traceparent: header, tracestate: extractor.extract(key: "tracestate", from: carrier))
        else { return }
        context.traceContext = trace
    }
}
