import ChatBotKit
import ChatTelemetry
import Foundation
import Logging
import Tracing

extension BotsConfiguration.TracingExport {
    /// The tracer `tracing:` describes, reporting as `service` (run `serviceSuffix` on it for a
    /// second kind of process, `bots serve`'s `-devserver`), made the process's tracer: the
    /// clients, the bots, the dev server and any span a handler starts use it.
    func bootstrapTracer(serviceSuffix: String = "", instance: String) -> OTLPTracer {
        let tracer = OTLPTracer(
            configuration: OTLPTracerConfiguration(
                endpoint: otlp, headers: headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value.value) },
                serviceName: service + serviceSuffix, resourceAttributes: ["service.instance.id": instance], samplingRatio: sample),
            logger: Logger(label: "bots.tracing"))
        InstrumentationSystem.bootstrap(tracer)
        return tracer
    }
}
