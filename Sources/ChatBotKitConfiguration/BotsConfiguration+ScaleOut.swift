import ChatBotKit
import ChatModels
import Foundation

extension BotsConfiguration {
    /// Running the bots on several nodes (`scale_out:` in bots.yaml): every `bots run` with the
    /// same section shares each bot's channels out with the others, through leases kept in
    /// PostgreSQL (see `BotService.ScaleOut`):
    ///
    /// ```yaml
    /// scale_out:
    ///   postgres: ${CHATBOTKIT_POSTGRES_URL}   # postgres://user:password@host:5432/database
    ///   node: ${HOSTNAME}                      # unique per node; the host name and process id by default
    ///   lease: 15s                             # how long a crashed node's channels wait
    /// ```
    public struct ScaleOut: Sendable, Hashable {
        /// The PostgreSQL connection string (it may hold a password).
        public var postgres: Secret
        /// This node's name; nil for the host name and process id.
        public var node: String?
        /// How long a lease lasts without renewal.
        public var lease: Duration

        /// This node's name: ``node``, else the host name and process id.
        public var nodeName: String { node ?? BotService.ScaleOut.defaultNode }

        /// Leases in `postgres`, held for `lease` at a time.
        public init(postgres: Secret, node: String? = nil, lease: Duration = .seconds(15)) {
            self.postgres = postgres
            self.node = node
            self.lease = lease
        }
    }

    static func parseScaleOut(_ node: ConfigNode?) throws(ConfigurationError) -> ScaleOut? {
        guard let node else { return nil }
        try node.allowOnly(["postgres", "node", "lease"])
        let postgresNode = try node.required("postgres")
        let postgres = try postgresNode.string()
        guard postgres.hasPrefix("postgres://") || postgres.hasPrefix("postgresql://") else {
            throw postgresNode.error(
                .badValue, "scale_out.postgres must be a PostgreSQL URL such as postgres://user:password@host:5432/database, found \"\(Secret.maskingPassword(in: postgres))\"")
        }
        var scaleOut = ScaleOut(postgres: Secret(postgres))
        if let name = node["node"] {
            let text = try name.string()
            guard !text.isEmpty else { throw name.error(.badValue, "scale_out.node is empty; leave it out for the host name and process id") }
            scaleOut.node = text
        }
        if let lease = node["lease"] {
            scaleOut.lease = try lease.duration()
            guard scaleOut.lease >= .seconds(1) else {
                throw lease.error(.badValue, "scale_out.lease must be at least 1s (leases are renewed three times per lease), found \(DurationText.format(scaleOut.lease))")
            }
        }
        return scaleOut
    }
}
