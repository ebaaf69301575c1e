import ChatClient
import ChatLocking
import Logging

/// One run of a delivery's handlers, and the failures it met. While a delivery runs, the
/// routing hands its failures here (through ``current``) instead of to `onError` at once: the
/// pipeline decides once the run is over whether they were transient (the delivery then runs
/// again after backoff, and `onError` hears nothing yet) or final (`onError` hears each, with
/// the number of runs, and the delivery goes to the dead letters).
final class DeliveryAttempt: Sendable {
    /// A handler's failure, with what `onError` needs to hear of it later.
    struct Failure: Sendable {
        let error: BotError
        let channel: ChatChannel
        let logger: Logger
        let context: BotContext?
        let routes: Bot.Routes
    }

    /// The run under way in this task, if the pipeline started one.
    @TaskLocal static var current: DeliveryAttempt?

    /// Which run of the delivery this is (1 for the first).
    let number: Int
    private let recorded = Locked<[Failure]>([])

    init(number: Int) {
        self.number = number
    }

    /// The failures of the run so far.
    var failures: [Failure] { recorded.withLock { $0 } }

    /// A handler of the run failed.
    func record(_ failure: Failure) {
        recorded.withLock { $0.append(failure) }
    }

    /// Whether `error`, or the error under it, may pass when the handler runs again later: the
    /// service could not be reached, broke the connection, failed (5xx) or was busy (429).
    static func isTransient(_ error: any Error) -> Bool {
        switch error {
        case let error as ChatClientError: error.isTransient
        case let error as BotError: error.underlying.map(isTransient) ?? false
        default: false
        }
    }
}
