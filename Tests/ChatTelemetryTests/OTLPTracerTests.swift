import ChatBotKitTesting
import ChatModels
import ChatTelemetry
import Foundation
import Prometheus
import Testing
import Tracing

@Suite("OTLPTracer: spans reach a real OTLP/HTTP collector on loopback, batched, retried and bounded")
struct OTLPTracerTests {
    @Test("spans are posted as OTLP JSON: ids in hex, parents, kinds, attributes, events, status and the resource")
    func exportsSpans() async throws {
        try await TestCollector.withCollector { collector in
            let tracer = OTLPTracer(configuration: .test(collector.baseURL))
            try await withRunning(tracer) {
                tracer.withSpan("HandleMessage", ofKind: .consumer) { parent in
                    parent.attributes["chat.message.id"] = "m-1"
                    parent.attributes["chatbotkit.attachment.types"] = ["image", "workout"]
                    parent.attributes["size"] = 42
                    parent.attributes["ratio"] = 0.5
                    parent.attributes["flag"] = true
                    parent.attributes["text"] = "say \"hi\"\n\u{1}\té🚀\\"
                    parent.attributes["huge"] = 1e300
                    parent.addEvent(SpanEvent(name: "attachment decoding failed", attributes: ["chatbotkit.field_path": "votes"]))
                    tracer.withSpan("SendMessage", ofKind: .client) { child in
                        child.setStatus(SpanStatus(code: .error, message: "HTTP 500"))
                    }
                }
            }
            let export = try #require(collector.received.first)
            #expect(export.path == "/v1/traces")
            #expect(export.headers["content-type"] == "application/json")
            #expect(export.headers["x-test-key"] == "k1")
            let spans = collector.spans
            #expect(spans.count == 2)
            let parent = try #require(spans.first { $0.name == "HandleMessage" })
            let child = try #require(spans.first { $0.name == "SendMessage" })
            #expect(parent.service == "tests")
            #expect(parent.kind == 5 && child.kind == 3)
            #expect(parent.traceID?.count == 32 && parent.spanID?.count == 16)
            #expect(child.traceID == parent.traceID)
            #expect(child.parentSpanID == parent.spanID)
            #expect(parent.parentSpanID == nil)
            #expect(parent.stringAttribute("chat.message.id") == "m-1")
            #expect(parent.attribute("size")?["intValue"] == .string("42"), "64-bit integers are strings in OTLP JSON")
            #expect(parent.attribute("ratio")?["doubleValue"] == .number(JSONNumber(0.5)))
            #expect(parent.attribute("flag")?["boolValue"] == .bool(true))
            #expect(parent.stringAttribute("text") == "say \"hi\"\n\u{1}\té🚀\\", "quotes, control characters and non-ASCII survive")
            #expect(parent.attribute("huge")?["doubleValue"].flatMap { if case .number(let n) = $0 { n.double } else { nil } } == 1e300)
            guard case .object(let array)? = parent.attribute("chatbotkit.attachment.types")?["arrayValue"] else {
                Issue.record("the string array is not an arrayValue")
                return
            }
            #expect(array["values"] == .array([.object(["stringValue": .string("image")]), .object(["stringValue": .string("workout")])]))
            guard case .array(let events)? = parent.json["events"], case .object(let event)? = events.first else {
                Issue.record("the event is missing")
                return
            }
            #expect(event["name"] == .string("attachment decoding failed"))
            #expect(child.statusCode == 2)
            guard case .string(let start)? = parent.json["startTimeUnixNano"], case .string(let end)? = parent.json["endTimeUnixNano"],
                let startNanos = UInt64(start), let endNanos = UInt64(end)
            else {
                Issue.record("the times are not decimal strings")
                return
            }
            #expect(startNanos <= endNanos)
            #expect(abs(Double(startNanos) / 1e9 - Date().timeIntervalSince1970) < 60, "times are Unix nanoseconds")
        }
    }

    @Test("a remote parent from traceparent is kept: same trace, its span as parent, and its sampled flag followed")
    func remoteParent() async throws {
        try await TestCollector.withCollector { collector in
            // Sampling nothing of new traces: a sampled remote parent still records its children.
            let tracer = OTLPTracer(configuration: .test(collector.baseURL, sampling: 0))
            let headers = ["traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "tracestate": "congo=t61rcWkgMzE"]
            let injected = try await withRunning(tracer) {
                var context = ServiceContext.topLevel
                tracer.extract(headers, into: &context, using: DictionaryExtractor())
                let injected = tracer.withSpan("POST /channels/{type}/{id}/message", context: context, ofKind: .server) { span in
                    var out: [String: String] = [:]
                    tracer.inject(span.context, into: &out, using: DictionaryInjector())
                    return out
                }
                // A new trace under ratio 0 records nothing, but still passes its context on, unsampled.
                let unsampled = tracer.withSpan("Unsampled") { span in
                    #expect(!span.isRecording)
                    var out: [String: String] = [:]
                    tracer.inject(span.context, into: &out, using: DictionaryInjector())
                    return out
                }
                #expect(unsampled["traceparent"]?.hasSuffix("-00") == true)
                return injected
            }
            let span = try #require(collector.spans.first)
            #expect(collector.spans.count == 1, "the unsampled trace is not exported")
            #expect(span.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
            #expect(span.parentSpanID == "00f067aa0ba902b7")
            #expect(span.kind == 2)
            #expect(span.string("traceState") == "congo=t61rcWkgMzE")
            // flags: sampled (1), parent's remoteness known (0x100) and remote (0x200).
            #expect(span.json["flags"] == .number(JSONNumber(0x301)))
            #expect(injected["traceparent"] == "00-4bf92f3577b34da6a3ce929d0e0e4736-\(span.spanID ?? "")-01")
            #expect(injected["tracestate"] == "congo=t61rcWkgMzE")
        }
    }

    @Test("new traces get distinct ids, and two tracers (two processes) do not repeat each other's")
    func distinctIDs() {
        let first = OTLPTracer(configuration: .test(URL(string: "http://127.0.0.1:1")!, sampling: 0))
        let second = OTLPTracer(configuration: .test(URL(string: "http://127.0.0.1:1")!, sampling: 0))
        var traces = Set<TraceID>()
        var spans = Set<SpanID>()
        for tracer in [first, second] {
            for _ in 0..<5_000 {
                let context = tracer.startSpan("root", context: .topLevel).context.traceContext
                if let context {
                    traces.insert(context.traceID)
                    spans.insert(context.spanID)
                }
            }
        }
        #expect(traces.count == 10_000 && spans.count == 10_000)
        #expect(!traces.contains { $0.isZero } && !spans.contains { $0.value == 0 })
    }

    @Test("a collector answering 503 (with Retry-After) and 429 gets the same batch again until it takes it")
    func retriesBusyCollector() async throws {
        try await TestCollector.withCollector { collector in
            collector.script([.init(status: 503, headers: ["Retry-After": "0"]), .init(status: 429)])
            let registry = PrometheusCollectorRegistry()
            let tracer = OTLPTracer(configuration: .test(collector.baseURL), metricsFactory: PrometheusMetricsFactory(registry: registry))
            try await withRunning(tracer) {
                tracer.withSpan("one") { _ in }
            }
            #expect(collector.received.count == 3)
            #expect(Set(collector.received.map { ExportedSpan.all(in: $0.body).first?.spanID }).count == 1, "one batch, sent three times")
            let samples = MetricSamplesReader(registry)
            #expect(samples["chatbotkit_spans_exported_total", ["endpoint": "/v1/traces"]] == 1)
            #expect(samples.total("chatbotkit_spans_dropped_total") == 0)
        }
    }

    @Test("a collector refusing a batch (HTTP 400) gets it once; it is dropped, counted, and the next batch goes through")
    func refusedBatch() async throws {
        try await TestCollector.withCollector { collector in
            collector.script([.init(status: 400, body: #"{"code":3,"message":"bad span"}"#)])
            let registry = PrometheusCollectorRegistry()
            let tracer = OTLPTracer(configuration: .test(collector.baseURL), metricsFactory: PrometheusMetricsFactory(registry: registry))
            try await withRunning(tracer) {
                for name in ["a", "b", "c"] { tracer.withSpan(name) { _ in } }  // a full batch: sent at once, refused
                try await eventually("the full batch was sent") { collector.received.count == 1 }
                tracer.withSpan("d") { _ in }
            }
            #expect(collector.received.count == 2)
            #expect(collector.spans.map(\.name) == ["a", "b", "c", "d"])
            let samples = MetricSamplesReader(registry)
            #expect(samples["chatbotkit_spans_dropped_total", ["reason": "export_failed"]] == 3)
            #expect(samples["chatbotkit_spans_exported_total", ["endpoint": "/v1/traces"]] == 1)
        }
    }

    @Test("spans the collector rejects in a partial success are counted as rejected, the rest as exported")
    func partialSuccess() async throws {
        try await TestCollector.withCollector { collector in
            collector.script([.init(status: 200, body: #"{"partialSuccess":{"rejectedSpans":"2","errorMessage":"too old"}}"#)])
            let registry = PrometheusCollectorRegistry()
            let tracer = OTLPTracer(configuration: .test(collector.baseURL), metricsFactory: PrometheusMetricsFactory(registry: registry))
            try await withRunning(tracer) {
                for name in ["a", "b", "c"] { tracer.withSpan(name) { _ in } }
            }
            let samples = MetricSamplesReader(registry)
            #expect(samples["chatbotkit_spans_dropped_total", ["reason": "rejected"]] == 2)
            #expect(samples["chatbotkit_spans_exported_total", ["endpoint": "/v1/traces"]] == 1)
        }
    }

    @Test("with no collector, the queue holds its bound and drops the rest, counted; stopping gives up within its deadline")
    func boundedQueue() async throws {
        let registry = PrometheusCollectorRegistry()
        var configuration = OTLPTracerConfiguration.test(URL(string: "http://127.0.0.1:1")!)
        configuration.maximumQueuedSpans = 4
        configuration.maximumBatchSize = 100
        configuration.maximumAttempts = 1
        configuration.shutdownDeadline = .seconds(2)
        let tracer = OTLPTracer(configuration: configuration, metricsFactory: PrometheusMetricsFactory(registry: registry))
        for index in 0..<10 { tracer.withSpan("span \(index)") { _ in } }
        #expect(tracer.queuedSpans == 4)
        let start = ContinuousClock.now
        try await withRunning(tracer) {}
        #expect(ContinuousClock.now - start < .seconds(30))
        let samples = MetricSamplesReader(registry)
        #expect(samples["chatbotkit_spans_dropped_total", ["reason": "queue_full"]] == 6)
        #expect(samples["chatbotkit_spans_dropped_total", ["reason": "export_failed"]] == 4)
        #expect(tracer.queuedSpans == 0)
    }

    @Test("checkCollector says why a collector cannot take spans: nothing listening, or an HTTP error with its message")
    func checkCollector() async throws {
        let nowhere = OTLPTracer(configuration: .test(URL(string: "http://127.0.0.1:1")!))
        await #expect(throws: TelemetryError.self) { try await nowhere.checkCollector() }
        do {
            try await nowhere.checkCollector()
        } catch {
            #expect(error.code == .unreachable)
            #expect(error.message.contains("cannot reach the collector at http://127.0.0.1:1/v1/traces"))
        }
        try await TestCollector.withCollector { collector in
            let tracer = OTLPTracer(configuration: .test(collector.baseURL))
            try await tracer.checkCollector()
            #expect(collector.received.first?.body == .object(["resourceSpans": .array([])]))
            collector.script([.init(status: 401, body: #"{"code":16,"message":"missing API key"}"#)])
            do {
                try await tracer.checkCollector()
                Issue.record("a 401 passed the check")
            } catch let error as TelemetryError {
                #expect(error.code == .refused && error.httpStatus == 401)
                #expect(error.message.hasSuffix("answered HTTP 401: missing API key"))
            }
        }
    }
}

/// Reads a registry's samples.
struct MetricSamplesReader {
    let samples: MetricSamples

    init(_ registry: PrometheusCollectorRegistry) {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        samples = MetricSamples(String(decoding: buffer, as: UTF8.self))
    }

    subscript(name: String, labels: [String: String]) -> Double? { samples[name, labels] }

    func total(_ name: String) -> Double { samples.total(name) }
}

struct DictionaryExtractor: Extractor {
    func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }
}

struct DictionaryInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) { carrier[key] = value }
}
