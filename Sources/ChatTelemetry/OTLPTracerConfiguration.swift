import Foundation

/// Where an ``OTLPTracer`` sends its spans, and how it batches them.
public struct OTLPTracerConfiguration: Sendable {
    /// The collector's OTLP/HTTP address (`http://127.0.0.1:4318`); spans are posted to its
    /// `/v1/traces`, or to the address itself when its path already ends so.
    public var endpoint: URL
    /// Headers sent with every export (an API key a hosted collector asks for, say).
    public var headers: [(name: String, value: String)]
    /// The `service.name` of the resource the spans come from.
    public var serviceName: String
    /// More attributes of that resource (`service.instance.id`, `deployment.environment`, …).
    public var resourceAttributes: [String: String]
    /// The share of new traces recorded, from 0 to 1; a span under a remote or local parent
    /// follows its parent's decision.
    public var samplingRatio: Double
    /// Spans kept waiting at most; more are dropped (and counted) rather than hold memory.
    public var maximumQueuedSpans: Int
    /// Spans sent in one request at most; a full batch is sent at once.
    public var maximumBatchSize: Int
    /// How long a span waits at most before it is sent.
    public var exportInterval: Duration
    /// How long one export may take before it counts as failed.
    public var exportTimeout: Duration
    /// Attempts per batch when the collector answers 429, 502, 503 or 504 or cannot be reached.
    public var maximumAttempts: Int
    /// How long the last export may take once the tracer is told to stop.
    public var shutdownDeadline: Duration

    /// A configuration with OpenTelemetry's usual batching (512 spans or 5 s, 2,048 waiting).
    public init(
        endpoint: URL, headers: [(name: String, value: String)] = [], serviceName: String, resourceAttributes: [String: String] = [:],
        samplingRatio: Double = 1, maximumQueuedSpans: Int = 2048, maximumBatchSize: Int = 512, exportInterval: Duration = .seconds(5),
        exportTimeout: Duration = .seconds(10), maximumAttempts: Int = 3, shutdownDeadline: Duration = .seconds(5)
    ) {
        self.endpoint = endpoint
        self.headers = headers
        self.serviceName = serviceName
        self.resourceAttributes = resourceAttributes
        self.samplingRatio = samplingRatio
        self.maximumQueuedSpans = maximumQueuedSpans
        self.maximumBatchSize = maximumBatchSize
        self.exportInterval = exportInterval
        self.exportTimeout = exportTimeout
        self.maximumAttempts = maximumAttempts
        self.shutdownDeadline = shutdownDeadline
    }

    /// Where the spans are posted.
    public var tracesURL: URL {
        endpoint.path.hasSuffix("/v1/traces") ? endpoint : endpoint.appendingPathComponent("v1/traces")
    }
}
