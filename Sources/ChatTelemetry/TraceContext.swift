import ChatModels

/// Where a span sits in its trace, as W3C Trace Context carries it between processes in the
/// `traceparent` and `tracestate` headers.
public struct TraceContext: Sendable, Hashable {
    /// The trace the span belongs to.
    public var traceID: TraceID
    /// The span itself (the parent of the spans started under it).
    public var spanID: SpanID
    /// Whether the trace is recorded and exported (the `sampled` flag).
    public var isSampled: Bool
    /// The vendors' `tracestate` list, passed on unchanged.
    public var traceState: String?
    /// Whether the context came from another process through a header.
    public var isRemote: Bool

    /// The `tracestate` longer than this is dropped rather than passed on (W3C allows that).
    static let maximumTraceStateLength = 512

    /// A context from its parts.
    public init(traceID: TraceID, spanID: SpanID, isSampled: Bool, traceState: String? = nil, isRemote: Bool = false) {
        self.traceID = traceID
        self.spanID = spanID
        self.isSampled = isSampled
        self.traceState = traceState
        self.isRemote = isRemote
    }

    /// The context a `traceparent` header gives (and its `tracestate`), or nil when the header
    /// breaks W3C Trace Context: a version of `ff`, ids not of lowercase hex or all zeros, a
    /// version 00 header of other than 55 characters. A later version's extra fields are skipped,
    /// as the recommendation asks.
    public init?(traceparent: String, tracestate: String? = nil) {
        let header = Substring(traceparent.trimmingSpaces)
        let utf8 = header.utf8
        guard utf8.count >= 55 else { return nil }
        let fields = header.split(separator: "-", maxSplits: 4, omittingEmptySubsequences: false)
        guard fields.count >= 4, fields[0].utf8.count == 2, let version = HexDigits.value(fields[0]), version != 0xFF,
            let traceID = TraceID(hex: fields[1]), !traceID.isZero,
            let spanID = SpanID(hex: fields[2]), spanID.value != 0,
            fields[3].utf8.count == 2, let flags = HexDigits.value(fields[3])
        else { return nil }
        if version == 0 {
            guard utf8.count == 55 else { return nil }
        } else if utf8.count > 55, fields.count < 5 {
            return nil
        }
        let state = tracestate.map(\.trimmingSpaces).flatMap { $0.isEmpty || $0.utf8.count > Self.maximumTraceStateLength ? nil : $0 }
        self.init(traceID: traceID, spanID: spanID, isSampled: flags & 1 == 1, traceState: state, isRemote: true)
    }

    /// The `traceparent` header: version 00, the ids and the sampled flag.
    public var traceparent: String {
        "00-\(traceID)-\(spanID)-\(isSampled ? "01" : "00")"
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (the optional whitespace of HTTP headers).
    fileprivate var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
