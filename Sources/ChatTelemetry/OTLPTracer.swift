import ChatTransport
import CoreMetrics
import Foundation
import Logging
import ServiceLifecycle
import Tracing

/// A tracer that sends its spans to an OpenTelemetry collector over OTLP/HTTP (JSON), and
/// carries trace context between processes in W3C `traceparent` headers.
///
/// Run it as a Service, before the services whose spans it takes, so it stops after them: its
/// last round sends what they ended while draining. Ended spans wait in a bounded queue and
/// leave in batches; when the collector is down, the spans beyond the queue are dropped and
/// counted, and the process goes on.
///
/// ```swift
/// let tracer = OTLPTracer(configuration: .init(endpoint: URL(string: "http://127.0.0.1:4318")!, serviceName: "bots"))
/// InstrumentationSystem.bootstrap(tracer)
/// let group = ServiceGroup(services: [tracer, bots], gracefulShutdownSignals: [.sigterm], logger: logger)
/// ```
public final class OTLPTracer: Tracer, Service {
    /// The tracer's spans.
    public typealias Span = OTLPSpan

    /// Where the spans go and how they are batched.
    public let configuration: OTLPTracerConfiguration
    let queue: SpanExportQueue
    let exporter: OTLPExporter
    private let ids = SpanIDGenerator()
    private let metrics: TelemetryMetrics
    private let logger: Logger

    /// A tracer posting to `configuration.endpoint` through `transport` (libcurl by default),
    /// counting exported and dropped spans in `metricsFactory` (else the process's).
    public init(
        configuration: OTLPTracerConfiguration, transport: (any HTTPTransport)? = nil, metricsFactory: (any MetricsFactory)? = nil,
        logger: Logger = Logger(label: "chatbotkit.tracing")
    ) {
        self.configuration = configuration
        self.logger = logger
        let metrics = TelemetryMetrics(explicitFactory: metricsFactory)
        self.metrics = metrics
        queue = SpanExportQueue(capacity: configuration.maximumQueuedSpans, batchSize: configuration.maximumBatchSize)
        var resource = [("service.name", configuration.serviceName)]
        resource += configuration.resourceAttributes.filter { $0.key != "service.name" }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        resource.append(("telemetry.sdk.name", "chatbotkit"))
        resource.append(("telemetry.sdk.language", "swift"))
        exporter = OTLPExporter(
            configuration: configuration, transport: transport ?? CurlHTTPTransport(),
            encoder: OTLPTraceEncoder(resource: resource, scopeName: "ChatBotKit"), metrics: metrics, logger: logger)
    }

    /// Starts a span: a child of the context's span (local or extracted from a header), else the
    /// root of a new trace, which the sampling ratio records or not.
    public func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind, at instant: @autoclosure () -> Instant,
        function: String, file fileID: String, line: UInt
    ) -> OTLPSpan {
        let parentContext = context()
        let parent = parentContext.traceContext
        let own: TraceContext
        if let parent {
            own = TraceContext(traceID: parent.traceID, spanID: ids.newSpan(), isSampled: parent.isSampled, traceState: parent.traceState)
        } else {
            let (traceID, spanID) = ids.newTrace()
            own = TraceContext(traceID: traceID, spanID: spanID, isSampled: Self.samples(traceID, ratio: configuration.samplingRatio))
        }
        let queue = self.queue
        let metrics = self.metrics
        return OTLPSpan(
            operationName: operationName, context: parentContext, kind: kind, traceContext: own, parent: parent,
            startNanoseconds: instant().nanosecondsSinceEpoch
        ) { finished in
            if !queue.append(finished) { metrics.dropped(1, reason: .queueFull) }
        }
    }

    /// Whether a new trace is recorded: its id's random low half under the ratio's share of
    /// the range, so every process decides the same for the same trace.
    static func samples(_ traceID: TraceID, ratio: Double) -> Bool {
        if ratio >= 1 { return true }
        if !(ratio > 0) { return false }
        return traceID.low < UInt64(ratio * 18_446_744_073_709_551_616.0)
    }

    /// Sends the spans waiting now, without waiting for the batch to fill or the interval.
    public func forceFlush() {
        queue.signal()
    }

    /// Spans ended and waiting to be sent.
    public var queuedSpans: Int { queue.count }

    /// Sends batches until a graceful shutdown (or cancellation), then sends what is left within
    /// the shutdown deadline.
    public func run() async throws {
        await withGracefulShutdownHandler {
            while !queue.isClosed, !Task.isCancelled {
                await queue.wait(upTo: configuration.exportInterval)
                await sendQueued()
            }
        } onGracefulShutdown: { [queue] in
            queue.close()
        }
        let deadline = ContinuousClock.now + configuration.shutdownDeadline
        await sendQueued(before: deadline)
        let left = queue.takeAll()
        if !left.isEmpty {
            metrics.dropped(left.count, reason: .exportFailed)
            logger.warning("\(left.count) spans were not sent before the tracer stopped")
        }
        logger.debug("tracer stopped")
    }

    /// Sends every queued batch; before `deadline` when one is given (no retries past it).
    private func sendQueued(before deadline: ContinuousClock.Instant? = nil) async {
        while true {
            if let deadline, ContinuousClock.now >= deadline { return }
            let batch = queue.takeBatch()
            if batch.isEmpty { return }
            await exporter.export(batch, before: deadline)
        }
    }
}

extension OTLPTracer {
    /// Posts an empty export, which a collector accepts and stores nothing of; throws why the
    /// collector cannot be reached or refuses it (`bots doctor`'s check).
    public func checkCollector() async throws(TelemetryError) {
        _ = try await exporter.post(Data(#"{"resourceSpans":[]}"#.utf8))
    }
}
