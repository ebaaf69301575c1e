import ChatClient

extension BotsConfiguration {
    /// `rate_budget: { calls: 600/min, messages: 30/min, uploads: 10/min, max_wait: 30s }`: at
    /// least one rate.
    static func parseRateBudget(_ node: ConfigNode) throws(ConfigurationError) -> RateBudget {
        try node.allowOnly(["calls", "messages", "uploads", "max_wait"])
        func rate(_ key: String) throws(ConfigurationError) -> RateBudget.Rate? {
            guard let value = node[key] else { return nil }
            guard let rate = RateBudget.Rate(try value.string()) else {
                throw value.error(.badValue, "\(value.path) must be a rate such as 30/min, 5/s or 100/h, found \(value.describe)")
            }
            return rate
        }
        var budget = RateBudget(calls: try rate("calls"), messages: try rate("messages"), uploads: try rate("uploads"))
        guard budget.calls != nil || budget.messages != nil || budget.uploads != nil else {
            throw node.error(.badValue, "\(node.path) needs at least one of calls, messages or uploads, such as messages: 30/min")
        }
        if let wait = node["max_wait"] { budget.maximumWait = try wait.duration() }
        return budget
    }
}
