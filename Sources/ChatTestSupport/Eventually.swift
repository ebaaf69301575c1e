/// Waits until `condition` holds, checking it every `interval`; throws ``WaitTimedOut`` naming
/// `what` once `timeout` has passed.
///
/// `what` is read only if the wait times out, so it can say what was seen by then:
///
/// ```swift
/// try await eventually("both replies are in (so far: \(replies.count))") { replies.count == 2 }
/// ```
///
/// It throws rather than records an issue so that it needs no test library: a test that does
/// not catch the error fails with the message, and benchmarks and tools can use it too.
public func eventually(
    _ what: @autoclosure () -> String, timeout: Duration = .seconds(10), polling interval: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw WaitTimedOut(what: what(), timeout: timeout) }
        try await Task.sleep(for: interval)
    }
}

/// A wait of ``eventually(_:timeout:polling:_:)`` that ran out of time.
public struct WaitTimedOut: Error, CustomStringConvertible {
    /// What was waited for.
    public let what: String
    /// How long.
    public let timeout: Duration
    /// The message a test failure shows.
    public var description: String { "timed out after \(timeout) waiting until \(what)" }
}
