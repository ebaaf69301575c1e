import ChatModels
import ChatTransport

/// How long one call keeps trying after transient failures (a refused, reset or timed-out
/// connection, a 5xx, a 429): at least `maximumAttempts` tries, and beyond them for as long as
/// the first failure is less than `tolerance` ago, so that a call safe to repeat outlasts an
/// outage of the service instead of failing after a second of backoff.
struct RetryBudget {
    /// At least this many tries, however short the tolerance.
    let maximumAttempts: Int
    /// How long after its first failure a call still tries again.
    let tolerance: Duration
    /// The try under way (1 for the first).
    var attempt = 0
    private var firstFailure: ContinuousClock.Instant?

    init(maximumAttempts: Int, tolerance: Duration) {
        self.maximumAttempts = maximumAttempts
        self.tolerance = tolerance
    }

    /// The wait before the next try after a failure (capped, jittered backoff), or nil when
    /// the call gives up. A wait never goes past the tolerance, so the last try comes at its end.
    mutating func nextWait() -> Duration? {
        nextWait(RetryDelay.backoff(attempt: attempt), outlastsAttempts: true)
    }

    /// The wait before the next try after a 429: until the quota's reset. Only a reset within
    /// `maximumWait` is waited for beyond ``maximumAttempts``; a longer one gets the capped
    /// wait until the attempts are spent, and the call fails with the 429.
    mutating func nextWait(rateLimitedFor response: TransportResponse, maximumWait: Duration) -> Duration? {
        let reset = RetryDelay.rateLimitWait(response, maximum: .seconds(86_400))
        return nextWait(min(reset, maximumWait), outlastsAttempts: reset <= maximumWait)
    }

    private mutating func nextWait(_ wait: Duration, outlastsAttempts: Bool) -> Duration? {
        let now = ContinuousClock.now
        let first = firstFailure ?? now
        firstFailure = first
        if attempt < maximumAttempts { return wait }
        let remaining = tolerance - (now - first)
        guard outlastsAttempts, remaining > .zero else { return nil }
        return min(wait, remaining)
    }

    /// What the error of a call that gave up adds: how many tries over how long.
    var gaveUpNote: String {
        guard attempt > 1, let firstFailure else { return "" }
        return " (gave up after \(attempt) attempts over \(OutageWatch.seconds(.now - firstFailure)))"
    }
}
