import ChatClient
import ChatModels
import Logging

/// The last write of a streamed reply, which must land: a 429, a spent budget, a 5xx or a
/// broken connection is waited out and tried again, until the deadline.
struct FinalWrite: Sendable {
    let client: ChatClient
    let deadline: ContinuousClock.Instant
    let logger: Logger

    func write(_ messageId: String, set: [String: RawJSON], unset: [String], as userId: String) async throws {
        var attempt = 0
        while true {
            do {
                try await client.partialUpdateMessage(messageId, set: set, unset: unset, as: userId, skipEnrichURL: true)
                return
            } catch let error as ChatClientError where Self.isTransient(error) && ContinuousClock.now < deadline {
                attempt += 1
                let pause = Duration.milliseconds(min(5_000, 250 << min(attempt, 5)))
                logger.info("The final text of streamed reply \(messageId) waits \(pause) to be written again: \(error)")
                try await Task.sleep(for: pause)
            }
        }
    }

    /// A refusal that goes away with time.
    static func isTransient(_ error: ChatClientError) -> Bool {
        if error.code == .budgetExceeded || error.code == .transport { return true }
        guard let status = error.httpStatus else { return false }
        return status == 429 || status >= 500
    }
}
