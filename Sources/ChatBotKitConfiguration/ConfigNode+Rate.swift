import ChatBotKit
import ChatClient

extension ConfigNode {
    /// A rate like `30/min`, `5/s`, `100/h` or `10/15s` (`rate_budget`'s and `sender_limit`'s).
    public func rate() throws(ConfigurationError) -> RateBudget.Rate {
        guard let rate = RateBudget.Rate(try string()) else {
            throw error(.badValue, "\(path) must be a rate such as 30/min, 5/s or 100/h, found \(describe)")
        }
        return rate
    }
}
