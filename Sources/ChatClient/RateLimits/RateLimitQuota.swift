import ChatModels
import Foundation

/// One endpoint's rate limit in the current window, as the service reports it in the
/// `x-ratelimit-*` headers of every answer and in `GET /rate_limits`.
public struct RateLimitQuota: Sendable, Hashable, CustomStringConvertible {
    /// Requests allowed in a window.
    public var limit: Int
    /// Requests left in this window.
    public var remaining: Int
    /// When the window ends and the quota is whole again.
    public var reset: Date

    /// A quota.
    public init(limit: Int, remaining: Int, reset: Date) {
        self.limit = limit
        self.remaining = remaining
        self.reset = reset
    }

    /// Whether no request is left until `reset`, at `now`.
    public func isSpent(at now: Date = Date()) -> Bool { remaining <= 0 && now < reset }

    /// `57/60 left until 12:01:00Z`.
    public var description: String {
        "\(remaining)/\(limit) left until \(reset.formatted(.iso8601))"
    }

    /// A quota from its headers; nil when an answer carries none (edge proxies, the CDN).
    init?(headers response: (String) -> String?) {
        guard let limit = response("x-ratelimit-limit").flatMap(RateLimitQuota.firstInteger),
            let remaining = response("x-ratelimit-remaining").flatMap(RateLimitQuota.firstInteger),
            let reset = response("x-ratelimit-reset").flatMap(RateLimitQuota.firstInteger)
        else { return nil }
        self.init(limit: limit, remaining: remaining, reset: Date(timeIntervalSince1970: TimeInterval(reset)))
    }

    /// A quota from `{"limit", "remaining", "reset"}` (Unix seconds); nil when a field is missing.
    init?(json: RawJSON) {
        guard let limit = json["limit"]?.intValue, let remaining = json["remaining"]?.intValue,
            let reset = json["reset"]?.intValue
        else { return nil }
        self.init(limit: limit, remaining: remaining, reset: Date(timeIntervalSince1970: TimeInterval(reset)))
    }

    /// The first value of a header that proxies may have repeated as `a, b`.
    private static func firstInteger(_ text: String) -> Int? {
        text.split(separator: ",").lazy.compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.first
    }
}
