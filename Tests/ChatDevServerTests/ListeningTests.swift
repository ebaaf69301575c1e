@testable import ChatDevServer
import ChatServing
import ChatTestSupport
import Foundation
import ServiceLifecycle
import Testing

@Suite("Dev server: listening", .timeLimit(.minutes(1)))
struct ListeningTests {
    @Test("a port already in use fails at once, to run() and to everyone waiting for the port, with what to do")
    func portInUse() async throws {
        let scratch = try ScratchFolder("listening")
        let first = scratch.path("first")
        let second = scratch.path("second")
        try await DevServer.withRunning(DevServerConfiguration(dataDirectory: first)) { holder in
            let taken = try await holder.port()
            let server = try await DevServer(configuration: DevServerConfiguration(port: taken, dataDirectory: second))
            // Waiting before the server runs, as `bots run` does, must end too.
            let waiter = Task { try await server.port() }
            let runFailure = await #expect(throws: DevServerError.self) { try await server.run() }
            #expect(runFailure?.code == .cannotListen)
            #expect(runFailure?.message.contains("127.0.0.1:\(taken)") == true)
            #expect(runFailure?.message.contains("already in use") == true)
            #expect(runFailure?.message.contains("embedded.port") == true)
            // Cancelled with the test at its time limit, so that a regression fails instead of hanging.
            let waitFailure = await #expect(throws: DevServerError.self) {
                try await withTaskCancellationHandler { try await waiter.value } onCancel: { waiter.cancel() }
            }
            #expect(waitFailure == runFailure)
            // And a late asker gets the same answer instead of waiting forever.
            await #expect(throws: DevServerError.self) { try await server.baseURL() }
            // The server holding the port is untouched.
            #expect(try await holder.port() == taken)
        }
    }

    @Test("waiting for the port of a server that never runs ends when the waiting task is cancelled")
    func cancelledWaiter() async throws {
        let scratch = try ScratchFolder("listening")
        let data = scratch.path("data")
        let server = try await DevServer(configuration: DevServerConfiguration(dataDirectory: data))
        let waiter = Task { try await server.port() }
        try await Task.sleep(for: .milliseconds(50))
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        // Already cancelled before it asks: no wait at all.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await server.port()
        }
        await #expect(throws: CancellationError.self) { try await early.value }
    }

    @Test("the first outcome stands: a port bound after a failure, or a failure after binding, changes nothing")
    func firstOutcomeStands() {
        let port = ListeningPort<DevServerError>()
        port.failed(DevServerError(code: .stopped, message: "stopped"))
        port.bound(to: 80)  // too late: the first outcome stands
        #expect(!port.isBound)
        let other = ListeningPort<DevServerError>()
        other.bound(to: 8080)
        other.failed(DevServerError(code: .stopped, message: "stopped"))
        #expect(other.isBound)
    }
}
