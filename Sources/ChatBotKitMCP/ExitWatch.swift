import ChatLocking
import Foundation
import MCP

/// Races work with an MCP server against the server exiting and a deadline: the SDK's client
/// would otherwise wait for an answer from a server that is gone (its requests' waits do not
/// end on cancellation), so on either the client is disconnected, which fails what waits.
struct ExitWatch: Sendable {
    let process: Process
    let name: String
    let output: Locked<Data>
    let client: Client

    func race<T: Sendable>(timeout: Duration, doing what: String, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                let deadline = ContinuousClock.now + timeout
                while process.isRunning, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                }
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                let error = failure(doing: what, timeout: timeout)
                await client.disconnect()
                throw error
            }
            return value
        }
    }

    private func failure(doing what: String, timeout: Duration) -> MCPServerError {
        let printed = output.withLock { String(decoding: $0.suffix(600), as: UTF8.self) }.trimmingCharacters(in: .whitespacesAndNewlines)
        let said = printed.isEmpty ? "" : "; it printed: \(printed)"
        if process.isRunning {
            return MCPServerError(code: .timedOut, message: "MCP server \(name) did not answer within \(timeout) while \(what)\(said)")
        }
        return MCPServerError(
            code: what == "starting" ? .startFailed : .exited,
            message: "MCP server \(name) exited (status \(process.terminationStatus)) while \(what)\(said)")
    }
}
