import ChatBotKit
import ChatBotKitTesting
import ChatTelemetry
import Foundation
import Logging
import Tracing

/// What tracing costs, two ways:
/// - spans/s made and sent by `OTLPTracer` (one consumer span per delivery, with the four
///   attributes a bot's delivery carries, batches of 512 posted to a loopback collector), the
///   same workload `Benchmarks/peers/tracing_peer.py` gives OpenTelemetry's Python SDK;
/// - a running bot's events/s (MetricsBenchmark's pipeline) without a tracer and with every
///   delivery traced and sent, alternating, best of `passes` each.
/// `ChatBenchmarks tracing [spans] [events] [passes]`
enum TracingBenchmark {
    static func run(_ arguments: [String]) async throws {
        let spans = arguments.first.flatMap(Int.init) ?? 100_000
        let events = arguments.count > 1 ? Int(arguments[1]) ?? 50_000 : 50_000
        let passes = arguments.count > 2 ? Int(arguments[2]) ?? 3 : 3
        try await TestWebPages.withPages(["/v1/traces": .init(contentType: "application/json", body: Data("{}".utf8))]) { collector in
            var bestSpans = 0.0
            for _ in 0..<passes { bestSpans = max(bestSpans, try await spansPerSecond(spans, collector: collector.url("/"))) }
            print(String(format: "OTLPTracer: %.0f spans/s made and sent (%d spans, best of %d; %d exports)", bestSpans, spans, passes, collector.hits("/v1/traces")))

            var random = SplitMix64(seed: 9)
            let frames = (0..<events).map { CorpusWriter.event(index: $0, random: &random) }
            var untraced = 0.0
            var traced = 0.0
            for _ in 0..<passes {
                untraced = max(untraced, try await MetricsBenchmark.handledPerSecond(frames, factory: nil))
                let tracer = OTLPTracer(
                    configuration: OTLPTracerConfiguration(endpoint: collector.url("/"), serviceName: "bench", maximumQueuedSpans: 16_384),
                    logger: Logger(label: "bench.tracing"))
                traced = max(traced, try await running(tracer) { try await MetricsBenchmark.handledPerSecond(frames, factory: nil, tracer: tracer) })
            }
            print(
                String(
                    format: "Bot with tracing (WebSocket + decode + dispatch, %d events, best of %d): no tracer %.0f events/s, "
                        + "every delivery traced and sent %.0f events/s (%+.1f%%)",
                    events, passes, untraced, traced, (traced / untraced - 1) * 100))
            print(String(format: "RESULT tracing swift_spans_per_s=%.0f untraced_events_per_s=%.0f traced_events_per_s=%.0f", bestSpans, untraced, traced))
        }
    }

    /// Makes `count` delivery-like spans and sends them all: the time from the first span to
    /// the end of the last export.
    static func spansPerSecond(_ count: Int, collector: URL) async throws -> Double {
        let tracer = OTLPTracer(
            configuration: OTLPTracerConfiguration(endpoint: collector, serviceName: "bench", maximumQueuedSpans: count),
            logger: Logger(label: "bench.tracing"))
        let clock = ContinuousClock()
        let start = clock.now
        try await running(tracer) {
            for index in 0..<count {
                let span = tracer.startSpan("HandleMessage", context: .topLevel, ofKind: .consumer)
                span.attributes["chatbotkit.bot"] = "bench"
                span.attributes["chat.channel.cid"] = "messaging:bench"
                span.attributes["chat.message.id"] = "message-\(index)"
                span.attributes["chatbotkit.attachment.types"] = ["image", "file", "workout"]
                span.end()
            }
        }
        guard tracer.queuedSpans == 0 else { throw BenchmarkError("\(tracer.queuedSpans) spans were left unsent") }
        return Double(count) / (clock.now - start).seconds
    }

    /// Runs `tracer` while `body` runs, then stops it and waits for its last export.
    static func running<T: Sendable>(_ tracer: OTLPTracer, _ body: () async throws -> T) async throws -> T {
        try await withRunningServices([tracer], logger: Logger(label: "bench.tracing"), body)
    }
}
