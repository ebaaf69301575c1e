import ChatModels

/// A failure inside a bot: a handler that threw, an attachment that could not be read, a reply
/// that could not be sent. Carries the message it happened on.
public struct BotError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String
        /// A code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// A handler threw.
        public static let handlerFailed = Code(rawValue: "bot.handler_failed")
        /// The configuration cannot be used.
        public static let configuration = Code(rawValue: "bot.configuration")
        /// The bot could not start (its user, its channels).
        public static let startFailed = Code(rawValue: "bot.start_failed")
        /// A bot's checkpoint file cannot be read (it then starts without catching up).
        public static let checkpointUnreadable = Code(rawValue: "bot.checkpoint_unreadable")
        /// A bot's dead-letter file cannot be read (it is moved aside and the bot starts).
        public static let deadLettersUnreadable = Code(rawValue: "bot.dead_letters_unreadable")
        /// The code's name.
        public var description: String { rawValue }
    }

    /// The kind.
    public let code: Code
    /// What happened.
    public let message: String
    /// The message being handled, if any.
    public let messageId: String?
    /// The error a handler threw, if any.
    public let underlying: (any Error)?
    /// How many times the handlers ran before the failure was final: more than 1 when a
    /// transient failure (the service unreachable) ran them again until it lasted past the
    /// outage tolerance.
    public let attempts: Int

    /// An error.
    public init(code: Code, message: String, messageId: String? = nil, underlying: (any Error)? = nil, attempts: Int = 1) {
        self.code = code
        self.message = message
        self.messageId = messageId
        self.underlying = underlying
        self.attempts = attempts
    }

    /// The same error after `attempts` runs.
    func after(attempts: Int) -> BotError {
        BotError(code: code, message: message, messageId: messageId, underlying: underlying, attempts: attempts)
    }

    /// `[code] message (message id)`.
    public var description: String {
        "[\(code)] \(message)" + (messageId.map { " (message \($0))" } ?? "") + (attempts > 1 ? " after \(attempts) attempts" : "")
    }
}
