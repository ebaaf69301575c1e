import ChatBotKitTesting
import ChatClient
import ChatLocking
import Foundation
import Testing

/// Waits without noticing cancellation, as a stubborn handler or a slow connection attempt
/// does (suspended, not spinning, so that it holds no thread of the test's small pool).
private func ignoringCancellation(for duration: Duration) async {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().asyncAfter(deadline: .now() + duration.timeInterval) { continuation.resume() }
    }
}

@Suite("withDeadline: work against a deadline, without waiting for work that overstays it")
struct DeadlineTests {
    @Test("work that finishes in time wins, and the timer is cancelled")
    func inTime() async throws {
        let timedOut = Locked(false)
        let value = try await withDeadline(.seconds(5)) { 42 } onTimeout: {
            timedOut.withLock { $0 = true }
            return 0
        }
        #expect(value == 42)
        try await Task.sleep(for: .milliseconds(50))
        #expect(!timedOut.withLock { $0 })
    }

    @Test("past the deadline the timeout's answer comes without waiting for the work, which is cancelled")
    func overstayed() async throws {
        let work = Stubborn()
        let value = try await withDeadline(.milliseconds(100)) {
            await work.run()
            return "work"
        } onTimeout: {
            "timeout"
        }
        #expect(value == "timeout")
        #expect(!work.finished, "answered before the stubborn work ended")
        try await eventually("the work is cancelled") { work.cancelled }
    }

    @Test("errors of the work and of the timeout are what the caller gets")
    func errors() async throws {
        struct Failed: Error, Equatable { let by: String }
        await #expect(throws: Failed(by: "work")) {
            try await withDeadline(.seconds(5)) { () async throws -> Int in throw Failed(by: "work") } onTimeout: { 0 }
        }
        await #expect(throws: Failed(by: "timeout")) {
            try await withDeadline(.milliseconds(20)) { () async throws -> Int in
                try await Task.sleep(for: .seconds(5))
                return 1
            } onTimeout: { throw Failed(by: "timeout") }
        }
    }

    @Test("work that ends while the timeout is still working out its answer wins")
    func workWinsMeanwhile() async throws {
        let timeoutStarted = Locked(false)
        let value = try await withDeadline(.milliseconds(50)) {
            while !timeoutStarted.withLock({ $0 }) { await ignoringCancellation(for: .milliseconds(10)) }
            return "work"
        } onTimeout: {
            timeoutStarted.withLock { $0 = true }
            await ignoringCancellation(for: .seconds(30))
            return "timeout"
        }
        #expect(value == "work")
    }

    @Test("cancelling the caller ends the wait with CancellationError and cancels the work, also when it was cancelled before it began")
    func callerCancelled() async throws {
        let work = Stubborn()
        let waiting = Task {
            try await withDeadline(.seconds(60)) {
                await work.run()
                return 1
            } onTimeout: { 0 }
        }
        try await eventually("the work started") { work.started }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(!work.finished, "not waited for")
        try await eventually("the work is cancelled") { work.cancelled }

        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await withDeadline(.seconds(60)) { () async throws -> Int in
                try await Task.sleep(for: .seconds(60))
                return 1
            } onTimeout: { 0 }
        }
        await #expect(throws: CancellationError.self) { try await early.value }
    }
}

/// Work that takes half a minute whatever happens, as a stubborn handler or a slow connection
/// attempt does; it notes when it starts, when it is cancelled and whether it ended.
private final class Stubborn: Sendable {
    private let state = Locked((started: false, cancelled: false, finished: false))
    var started: Bool { state.withLock { $0.started } }
    var cancelled: Bool { state.withLock { $0.cancelled } }
    var finished: Bool { state.withLock { $0.finished } }

    func run() async {
        state.withLock { $0.started = true }
        await withTaskCancellationHandler {
            await ignoringCancellation(for: .seconds(30))
        } onCancel: {
            state.withLock { $0.cancelled = true }
        }
        state.withLock { $0.finished = true }
    }
}
