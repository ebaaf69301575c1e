import Foundation

/// A value guarded by a pthread mutex (`NSLock`), shared by the modules of this package.
///
/// The transport, client and dev server share state between Swift tasks and C service threads,
/// and their tests run under ThreadSanitizer. TSan follows pthread locks and atomics, but not
/// the kernel hand-off inside `Synchronization.Mutex` on Linux (a contended lock is passed on
/// by a futex syscall TSan never sees), so with `Mutex` it reports races that cannot happen,
/// only under contention, and a real race would drown in them. `package` keeps this type out
/// of the public API.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// Guards `value`.
    package init(_ value: sending Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
