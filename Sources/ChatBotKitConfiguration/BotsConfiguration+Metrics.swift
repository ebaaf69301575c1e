import ChatBotKit

extension BotsConfiguration {
    /// Where `bots run` serves the bots' metrics (`metrics:` in bots.yaml), in Prometheus' text
    /// format at `/metrics`:
    ///
    /// ```yaml
    /// metrics:
    ///   host: 127.0.0.1   # the default: this machine only
    ///   port: 9464        # 0 picks a free port
    /// ```
    public struct MetricsEndpoint: Sendable, Hashable {
        /// Address to bind.
        public var host: String
        /// Port (0 picks a free one).
        public var port: Int

        /// An endpoint; by default 127.0.0.1:9464, Prometheus' usual port for exporters.
        public init(host: String = "127.0.0.1", port: Int = 9464) {
            self.host = host
            self.port = port
        }
    }

    static func parseMetrics(_ node: ConfigNode?, embedded: Embedded, server: Server) throws(ConfigurationError) -> MetricsEndpoint? {
        guard let node else { return nil }
        try node.allowOnly(["host", "port"])
        var endpoint = MetricsEndpoint()
        if let host = node["host"] {
            endpoint.host = try host.string()
            guard !endpoint.host.isEmpty else { throw host.error(.badValue, "metrics.host is empty; leave it out for 127.0.0.1") }
        }
        if let port = node["port"] {
            endpoint.port = try port.int()
            guard (0...65535).contains(endpoint.port) else { throw port.error(.badValue, "metrics.port must be 0...65535") }
            // Caught here rather than as a failed bind once the dev server already listens.
            if server.url == nil, endpoint.port != 0, endpoint.port == embedded.port, endpoint.host == embedded.host {
                throw port.error(
                    .badValue, "metrics.port \(endpoint.port) is the embedded dev server's port; give the metrics a port of their own")
            }
        }
        return endpoint
    }
}
