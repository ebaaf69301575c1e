import ChatBotKitConfiguration
import ChatBotKit
import ChatTelemetry
import Foundation
import Logging
import Tracing

extension BotsConfiguration.TracingExport {
    /// The tracer settings `tracing:` describes, reporting as `service` plus `serviceSuffix`
    /// (`bots serve`'s `-devserver`) from `instance`.
    func tracerConfiguration(serviceSuffix: String = "", instance: String) -> OTLPTracerConfiguration {
        OTLPTracerConfiguration(
            endpoint: otlp, headers: headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value.value) },
            serviceName: service + serviceSuffix, resourceAttributes: ["service.instance.id": instance], samplingRatio: sample)
    }

    /// The tracer `tracing:` describes, made the process's tracer: the clients, the bots, the dev
    /// server and any span a handler starts use it.
    func bootstrapTracer(serviceSuffix: String = "", instance: String) -> OTLPTracer {
        let tracer = OTLPTracer(
            configuration: tracerConfiguration(serviceSuffix: serviceSuffix, instance: instance), logger: Logger(label: "bots.tracing"))
        InstrumentationSystem.bootstrap(tracer)
        return tracer
    }
}
