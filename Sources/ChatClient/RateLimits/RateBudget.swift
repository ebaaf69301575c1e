import ChatModels
import Foundation

/// A limit a client sets itself on how many calls it makes, below the service's quotas: so that
/// one bot cannot spend the quota its app shares with every other bot and user (`rate_budget` in
/// `bots.yaml`). A call over budget waits for its turn, up to `maximumWait`; one that would wait
/// longer fails at once with ``ChatClientError/Code/budgetExceeded`` and is not sent.
public struct RateBudget: Sendable, Hashable {
    /// Every REST call, uploads included.
    public var calls: Rate?
    /// Messages written: sent, edited (`SendMessage`, `UpdateMessage`, `UpdateMessagePartial`).
    public var messages: Rate?
    /// Files uploaded (`UploadFile`, `UploadImage`).
    public var uploads: Rate?
    /// The longest a call waits for its turn.
    public var maximumWait: Duration

    /// A budget; the rates left out are not limited.
    public init(calls: Rate? = nil, messages: Rate? = nil, uploads: Rate? = nil, maximumWait: Duration = .seconds(30)) {
        self.calls = calls
        self.messages = messages
        self.uploads = uploads
        self.maximumWait = maximumWait
    }

    /// How many calls per how long; bursts of up to `count` go at once, then calls are spaced
    /// `period / count` apart.
    public struct Rate: Sendable, Hashable, CustomStringConvertible {
        /// Calls allowed per period.
        public var count: Int
        /// The period.
        public var period: Duration

        /// The time between two calls once a burst is spent.
        var spacing: Duration { period / count }

        /// A rate of `count` calls per `period`; nil unless both are positive.
        public init?(count: Int, per period: Duration) {
            guard count > 0, period > .zero else { return nil }
            self.count = count
            self.period = period
        }

        /// A rate written as `30/min`, `5/s`, `100/h`, `2000/day` or `10/15s`; nil for anything else.
        public init?(_ text: String) {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let count = Int(parts[0].trimmingCharacters(in: .whitespaces)) else { return nil }
            let unit = parts[1].trimmingCharacters(in: .whitespaces).lowercased()
            let period: Duration? =
                switch unit {
                case "s", "sec", "second": .seconds(1)
                case "m", "min", "minute": .seconds(60)
                case "h", "hour": .seconds(3600)
                case "d", "day": .seconds(86_400)
                default: DurationText.parse(unit)
                }
            guard let period else { return nil }
            self.init(count: count, per: period)
        }

        /// `30/min`, or `10/15s` when the period is no single unit.
        public var description: String {
            switch period {
            case .seconds(1): "\(count)/s"
            case .seconds(60): "\(count)/min"
            case .seconds(3600): "\(count)/h"
            case .seconds(86_400): "\(count)/day"
            default: "\(count)/\(DurationText.format(period))"
            }
        }
    }

    /// Which of the rates a call of `endpoint` spends, with their names.
    func rates(for endpoint: EndpointName) -> [(name: String, rate: Rate)] {
        var rates: [(name: String, rate: Rate)] = []
        if let calls { rates.append(("calls", calls)) }
        if let messages, RateBudget.messageEndpoints.contains(endpoint) { rates.append(("messages", messages)) }
        if let uploads, RateBudget.uploadEndpoints.contains(endpoint) { rates.append(("uploads", uploads)) }
        return rates
    }

    static let messageEndpoints: Set<EndpointName> = [.sendMessage, .updateMessage, .updateMessagePartial]
    static let uploadEndpoints: Set<EndpointName> = [.uploadFile, .uploadImage]
}
