/// Waits until `condition` holds, checking it every 20 ms; throws ``WaitTimedOut`` naming
/// `what` once `timeout` has passed.
public func eventually(_ what: String, timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw WaitTimedOut(what: what, timeout: timeout) }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// A wait of ``eventually(_:timeout:_:)`` that ran out of time.
public struct WaitTimedOut: Error, CustomStringConvertible {
    /// What was waited for.
    public let what: String
    /// How long.
    public let timeout: Duration
    /// The message a test failure shows.
    public var description: String { "timed out after \(timeout) waiting until \(what)" }
}
