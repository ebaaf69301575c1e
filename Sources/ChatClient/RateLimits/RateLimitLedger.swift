import ChatLocking
import ChatModels
import Foundation

/// The quotas the service reported in its answers, per endpoint. A call whose quota is spent
/// waits for the window's reset instead of being sent for a certain 429, which would count
/// against the app too; calls sent in the meantime are counted off, so concurrent handlers do
/// not all go out on the last request left.
final class RateLimitLedger: Sendable {
    private let quotas = Locked<[EndpointName: RateLimitQuota]>([:])

    /// What the service said last about `endpoint`.
    func quota(for endpoint: EndpointName) -> RateLimitQuota? {
        quotas.withLock { $0[endpoint] }
    }

    /// Every quota seen, by endpoint.
    var all: [EndpointName: RateLimitQuota] { quotas.withLock { $0 } }

    /// Records the quota an answer carried.
    func record(_ quota: RateLimitQuota, for endpoint: EndpointName) {
        quotas.withLock { $0[endpoint] = quota }
    }

    /// Takes one request of `endpoint`'s quota: nil when the call may go now, else how long
    /// until the window resets. A quota never seen, or whose window is over, lets it go.
    func take(_ endpoint: EndpointName, now: Date = Date()) -> Duration? {
        quotas.withLock { quotas in
            guard var quota = quotas[endpoint], now < quota.reset else { return nil }
            guard quota.remaining > 0 else { return .seconds(quota.reset.timeIntervalSince(now)) }
            quota.remaining -= 1
            quotas[endpoint] = quota
            return nil
        }
    }

    /// Whether `endpoint`'s quota is spent until a reset still to come, taking nothing.
    func isSpent(_ endpoint: EndpointName, now: Date = Date()) -> Bool {
        quotas.withLock { $0[endpoint]?.isSpent(at: now) ?? false }
    }
}
