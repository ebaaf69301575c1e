import ChatBotKit

extension BotsConfiguration {
    /// `outage_tolerance: 10m`: how long a bot's calls and handlers keep trying while the
    /// service is unreachable. It has to end: a message held for ever would hold its channel's
    /// later messages for ever too, and a dead letter at least says what was not answered.
    static func parseOutageTolerance(_ node: ConfigNode) throws(ConfigurationError) -> Duration {
        if case .scalar(let text, _) = node.value, ["forever", "infinite", "never", "off"].contains(text.lowercased()) {
            throw node.error(
                .badValue,
                "\(node.path) must be a duration such as 10m or 1h, found \(node.describe): a message held for ever holds its channel's "
                    + "later messages too; pick the longest outage worth waiting out")
        }
        return try node.duration()
    }
}
