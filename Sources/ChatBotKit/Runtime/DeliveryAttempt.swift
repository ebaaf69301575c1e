import ChatClient
import ChatLocking
import Logging

/// One run of a delivery's handlers, and the failures it met. While a delivery runs, the
/// routing hands its failures here too (through ``current``). A transient one is kept from
/// `onError` until the run is over: the pipeline then runs the delivery again after backoff, or,
/// past the outage tolerance, tells `onError` with the number of runs. Either way a failed
/// delivery that is not run again goes to the dead letters.
final class DeliveryAttempt: Sendable {
    /// A handler's failure, with what `onError` needs to hear of it later.
    struct Failure: Sendable {
        let error: BotError
        let channel: ChatChannel
        let logger: Logger
        let context: BotContext?
        let routes: Bot.Routes
        /// Whether `onError` heard of it already (a failure that is not transient is told at once).
        let isTold: Bool
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
