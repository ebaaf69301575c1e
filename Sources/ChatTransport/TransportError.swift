/// A failure below HTTP and WebSocket semantics: the connection, TLS, a timeout, a file.
///
/// ```swift
/// catch let error as TransportError where error.code == .tlsFailure { ... }
/// ```
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable error kind.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String
        /// A code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The host could not be resolved or refused the connection.
        public static let connectionFailed = Code(rawValue: "transport.connection_failed")
        /// The connection broke during the exchange.
        public static let connectionLost = Code(rawValue: "transport.connection_lost")
        /// The server's certificate did not verify, or TLS could not be set up.
        public static let tlsFailure = Code(rawValue: "transport.tls_failure")
        /// No progress within the configured time.
        public static let timedOut = Code(rawValue: "transport.timed_out")
        /// A local file to send could not be read.
        public static let fileUnreadable = Code(rawValue: "transport.file_unreadable")
        /// The response could not be written where it was asked to go.
        public static let writeFailed = Code(rawValue: "transport.write_failed")
        /// The response (or a WebSocket message) is larger than allowed.
        public static let tooLarge = Code(rawValue: "transport.too_large")
        /// The request was malformed before it left (bad URL, bad header).
        public static let invalidRequest = Code(rawValue: "transport.invalid_request")
        /// The WebSocket handshake was refused or the socket closed.
        public static let webSocketClosed = Code(rawValue: "transport.websocket_closed")
        /// The transport was shut down.
        public static let shutDown = Code(rawValue: "transport.shut_down")
        /// Anything else the C library reported.
        public static let other = Code(rawValue: "transport.other")
        /// The code's name.
        public var description: String { rawValue }
    }

    /// The error kind.
    public let code: Code
    /// What happened, with the C library's own detail where it has one.
    public let message: String

    /// An error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// `[code] message`.
    public var description: String { "[\(code)] \(message)" }
}
