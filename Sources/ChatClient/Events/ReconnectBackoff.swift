/// The reconnect schedule of Stream's SDKs: after `n` consecutive failures, wait a random time
/// between `min(max(0.25, (n − 1) · 2), 25)` and `min(0.5 + 2n, 25)` seconds; the first retry
/// after a working connection drops is immediate.
public struct ReconnectBackoff: Sendable {
    /// The longest wait.
    public var maximum: Double = 25

    /// The schedule.
    public init() {}

    /// The bounds of the wait after `failures` consecutive failures.
    public func range(afterFailures failures: Int) -> ClosedRange<Double> {
        guard failures > 0 else { return 0...0 }
        let lower = min(max(0.25, Double(failures - 1) * 2), maximum)
        let upper = min(0.5 + 2 * Double(failures), maximum)
        return lower...max(lower, upper)
    }

    /// A jittered wait after `failures` consecutive failures.
    public func delay(afterFailures failures: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let bounds = range(afterFailures: failures)
        let seconds = bounds.lowerBound == bounds.upperBound ? bounds.lowerBound : Double.random(in: bounds, using: &generator)
        return .milliseconds(Int64(seconds * 1000))
    }
}
