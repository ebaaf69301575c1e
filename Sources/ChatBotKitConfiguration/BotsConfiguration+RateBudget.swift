import ChatBotKit
import ChatClient

extension BotsConfiguration {
    /// `rate_budget: { calls: 600/min, messages: 30/min, uploads: 10/min, max_wait: 30s }`: at
    /// least one rate.
    static func parseRateBudget(_ node: ConfigNode) throws(ConfigurationError) -> RateBudget {
        try node.allowOnly(["calls", "messages", "uploads", "max_wait"])
        var budget = RateBudget(calls: try node["calls"]?.rate(), messages: try node["messages"]?.rate(), uploads: try node["uploads"]?.rate())
        guard budget.calls != nil || budget.messages != nil || budget.uploads != nil else {
            throw node.error(.badValue, "\(node.path) needs at least one of calls, messages or uploads, such as messages: 30/min")
        }
        if let wait = node["max_wait"] { budget.maximumWait = try wait.duration() }
        return budget
    }
}
