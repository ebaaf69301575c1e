import ChatLocking
import ChatTransport
import Foundation

/// Posts JSON to the app's own endpoints (its webhook and its custom command handler) over
/// libcurl, giving each request a time limit in all.
///
/// The transport's thread is started at the first post, since most dev servers post nothing,
/// and stopped with the server.
final class HookPoster: Sendable {
    /// Why a post got no answer.
    enum Failure: Error, Sendable {
        /// No answer within the time limit.
        case timedOut
        /// No connection, or it broke; why, for the log.
        case unreachable(String)
    }

    /// What the endpoint answered.
    struct Answer: Sendable {
        let status: Int
        let body: Data
    }

    private struct State {
        var transport: CurlHTTPTransport?
        var isStopped = false
    }

    /// The most an answer may carry (a custom command handler answers one message).
    static let answerLimit = 8 << 20

    private let state = Locked(State())

    /// Posts `body` as JSON with `headers` to `url`, for an answer within `timeout`.
    func post(_ body: Data, to url: URL, headers: [(name: String, value: String)], within timeout: Duration) async throws(Failure) -> Answer {
        guard let transport = state.withLock({ state -> CurlHTTPTransport? in
            guard !state.isStopped else { return nil }
            if state.transport == nil { state.transport = CurlHTTPTransport() }
            return state.transport
        }) else { throw .unreachable("the dev server is stopping") }
        let request = TransportRequest(
            method: "POST", url: url, headers: headers, body: .data(body, contentType: "application/json"),
            destination: .memory(limit: Self.answerLimit), connectTimeout: timeout, idleTimeout: timeout)
        do {
            let response = try await withThrowingTaskGroup(of: TransportResponse?.self) { group in
                group.addTask { try await transport.send(request) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
            guard let response else { throw Failure.timedOut }
            return Answer(status: response.status, body: response.body)
        } catch let failure as Failure {
            throw failure
        } catch let error as TransportError where error.code == .timedOut {
            throw .timedOut
        } catch let error as TransportError {
            throw .unreachable(error.message)
        } catch {
            throw .unreachable("\(error)")
        }
    }

    /// Stops the transport; later posts fail at once.
    func shutdown() {
        let transport = state.withLock { state in
            state.isStopped = true
            defer { state.transport = nil }
            return state.transport
        }
        transport?.shutdown()
    }
}
