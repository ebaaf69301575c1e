import Foundation

/// A value guarded by a pthread mutex (`NSLock`).
///
/// The transport shares state between Swift tasks and its own C service threads, and its tests
/// run under ThreadSanitizer. TSan follows pthread locks and atomics, but not the futex inside
/// `Synchronization.Mutex` on Linux, so with `Mutex` it reports races that cannot happen and a
/// real one would drown in them. Hence this lock here; the modules above use `Mutex`.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
