import ChatClient
import ChatModels
import Foundation

/// A delivery a bot gave up on: what it was (the message, when it was one), the error, why it
/// was given up and after how many runs. One line of `dead-letters/<bot>.jsonl`; `bots
/// dead-letters list|retry|drop` shows them, runs them again or forgets them.
public struct DeadLetter: Codable, Sendable, Hashable {
    /// Why a delivery was given up.
    public struct Reason: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
        /// The reason's name (the `reason` of `chatbotkit_dead_letters_total`).
        public let rawValue: String
        /// A reason from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The service stayed unreachable (or failing, or busy) longer than the outage tolerance.
        public static let outage = Reason(rawValue: "outage")
        /// The service refused a call for good (a 4xx: not allowed, not found, bad input).
        public static let refused = Reason(rawValue: "refused")
        /// Something could not be decoded (an answer, a payload, saved state).
        public static let decoding = Reason(rawValue: "decoding")
        /// A handler threw an error of its own.
        public static let handlerError = Reason(rawValue: "handler_error")
        /// The reason's name.
        public var description: String { rawValue }
    }

    /// The delivery's key (the message id for a new message), from which reply ids derive.
    public var key: String
    /// The bot.
    public var bot: String
    /// The channel.
    public var cid: String
    /// What the delivery was: `message`, `edit`, `reaction`, `schedule`, ... (a metrics trigger).
    public var trigger: String
    /// The message handled, for deliveries of a message; only new messages run again.
    public var message: Message?
    /// What went wrong (each failing handler's error, one per line).
    public var error: String
    /// Why it was given up.
    public var reason: Reason
    /// How many times its handlers ran.
    public var attempts: Int
    /// When it was given up.
    public var failedAt: Date

    /// A dead letter.
    public init(
        key: String, bot: String, cid: String, trigger: String, message: Message?, error: String, reason: Reason, attempts: Int,
        failedAt: Date = Date()
    ) {
        self.key = key
        self.bot = bot
        self.cid = cid
        self.trigger = trigger
        self.message = message
        self.error = error
        self.reason = reason
        self.attempts = attempts
        self.failedAt = failedAt
    }

    /// Why `errors` (each a handler's, under its ``BotError``) end a delivery: an outage when
    /// any was transient (it outlasted the tolerance), else by the first.
    static func reason(for errors: [any Error]) -> Reason {
        if errors.contains(where: DeliveryAttempt.isTransient) { return .outage }
        for error in errors {
            switch error {
            case let error as BotError where error.underlying != nil: return reason(for: [error.underlying!])
            case let error as ChatClientError where error.code == .invalidResponse: return .decoding
            case let error as ChatClientError where error.httpStatus.map({ (400...499).contains($0) }) ?? false: return .refused
            case is DecodingError: return .decoding
            default: continue
            }
        }
        return .handlerError
    }
}
