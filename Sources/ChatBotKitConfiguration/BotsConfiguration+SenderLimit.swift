import ChatBotKit

extension BotsConfiguration {
    /// `sender_limit: 20/min`, or `sender_limit: { messages: 20/min, notify: false, exempt: [workout-bot] }`.
    static func parseSenderLimit(_ node: ConfigNode) throws(ConfigurationError) -> SenderLimit.Rule {
        if case .scalar = node.value { return SenderLimit.Rule(rate: try node.rate()) }
        try node.allowOnly(["messages", "notify", "exempt"])
        var rule = SenderLimit.Rule(rate: try node.required("messages").rate())
        if let notify = node["notify"] { rule.notifies = try notify.bool() }
        if let exempt = node["exempt"] {
            for user in try exempt.sequence() { rule.exempt.insert(try user.userId()) }
        }
        return rule
    }
}
