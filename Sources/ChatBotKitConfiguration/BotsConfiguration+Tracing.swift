import ChatBotKit
import Foundation

extension BotsConfiguration {
    /// Where `bots run` sends its spans (`tracing:` in bots.yaml): every delivery, the calls its
    /// handlers make and, with the embedded server, the server's work on them, to an
    /// OpenTelemetry collector over OTLP/HTTP:
    ///
    /// ```yaml
    /// tracing:
    ///   otlp: http://127.0.0.1:4318   # the collector (spans go to its /v1/traces)
    ///   service: bots                 # service.name; "bots" by default
    ///   sample: 0.25                  # the share of traces recorded; 1 by default
    ///   headers:                      # sent with every export, e.g. a hosted collector's key
    ///     x-api-key: ${COLLECTOR_KEY}
    /// ```
    public struct TracingExport: Sendable, Hashable {
        /// The collector's OTLP/HTTP address.
        public var otlp: URL
        /// The `service.name` the spans are reported under.
        public var service: String
        /// The share of traces recorded, 0 to 1.
        public var sample: Double
        /// Headers for the collector; their values may be keys, so they are secrets.
        public var headers: [String: Secret]

        /// Spans to `otlp`, all of them, as service `bots`.
        public init(otlp: URL, service: String = "bots", sample: Double = 1, headers: [String: Secret] = [:]) {
            self.otlp = otlp
            self.service = service
            self.sample = sample
            self.headers = headers
        }
    }

    static func parseTracing(_ node: ConfigNode?) throws(ConfigurationError) -> TracingExport? {
        guard let node else { return nil }
        try node.allowOnly(["otlp", "service", "sample", "headers"])
        let otlpNode = try node.required("otlp")
        let text = try otlpNode.string()
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false, url.query == nil
        else {
            throw otlpNode.error(
                .badValue, "tracing.otlp must be a collector's OTLP/HTTP address such as http://127.0.0.1:4318, found \"\(Secret.maskingPassword(in: text))\"")
        }
        var tracing = TracingExport(otlp: url)
        if let service = node["service"] {
            tracing.service = try service.string()
            guard !tracing.service.isEmpty else { throw service.error(.badValue, "tracing.service is empty; leave it out for \"bots\"") }
        }
        if let sample = node["sample"] {
            let text = try sample.string()
            guard let ratio = Double(text), (0...1).contains(ratio) else {
                throw sample.error(.badValue, "tracing.sample must be a number from 0 (no traces) to 1 (every trace), found \(text)")
            }
            tracing.sample = ratio
        }
        if let headers = node["headers"] {
            for (name, value) in try headers.mapping() {
                let isToken = !name.isEmpty && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || "!#$%&'*+-.^_`|~".unicodeScalars.contains($0)) }
                guard isToken else { throw value.error(.badValue, "tracing.headers: \"\(name)\" is not an HTTP header name") }
                tracing.headers[name] = Secret(try value.string())
            }
        }
        return tracing
    }
}
