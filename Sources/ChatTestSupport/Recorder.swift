import ChatLocking

/// Values that handlers hand over, kept in the order they came; safe to record from any task.
///
/// A test gives the recorder to a bot's handlers, then waits until what they recorded says
/// the bot did its work:
///
/// ```swift
/// let seen = Recorder<String>()
/// bot.onMessage { context in seen.record(context.message.text) }
/// // … post "hi" …
/// try await seen.wait { $0.contains("hi") }
/// ```
public final class Recorder<Value: Sendable>: Sendable {
    // ChatLocking's lock rather than Synchronization.Mutex: the tests run under ThreadSanitizer,
    // which cannot follow a contended Mutex hand-off on Linux (see ChatLocking's Locked).
    private let values = Locked<[Value]>([])

    /// A recorder with nothing recorded.
    public init() {}

    /// Adds `value` after the ones recorded so far.
    public func record(_ value: Value) {
        values.withLock { $0.append(value) }
    }

    /// Everything recorded so far, oldest first.
    public var all: [Value] { values.withLock { $0 } }

    /// Waits until `condition` holds for the values recorded; throws ``WaitTimedOut`` after
    /// `timeout`, naming `what` and listing what was recorded by then.
    public func wait(
        _ what: String = "the recorded values match", timeout: Duration = .seconds(10), until condition: ([Value]) -> Bool
    ) async throws {
        try await eventually("\(what) (recorded so far: \(all))", timeout: timeout) { condition(all) }
    }
}

extension Recorder where Value: Equatable {
    /// How many times `value` was recorded.
    public func count(_ value: Value) -> Int {
        all.filter { $0 == value }.count
    }
}
