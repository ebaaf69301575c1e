import ChatBotKit

/// Why the webhook server is not serving.
public struct WebhookServerError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String
        /// A code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The address could not be bound (in use, not permitted, not a local address).
        public static let cannotListen = Code(rawValue: "webhook.cannot_listen")
        /// The server stopped (shutdown, cancellation) before it was listening.
        public static let stopped = Code(rawValue: "webhook.stopped")
        /// The code's name.
        public var description: String { rawValue }
    }

    /// The kind.
    public let code: Code
    /// What happened and what to do about it.
    public let message: String

    /// An error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// `[code] message`.
    public var description: String { "[\(code)] \(message)" }
}
