import ChatTransport

/// Why a chat call failed: the Stream error code and HTTP status when the server answered,
/// and a message that says what to do.
public struct ChatClientError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure it is.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String
        /// A code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The server refused the call (see `streamCode` and `httpStatus`).
        public static let api = Code(rawValue: "chat.api")
        /// The server could not be reached, or the connection broke.
        public static let transport = Code(rawValue: "chat.transport")
        /// An upload was refused before any byte was sent (size, type, missing file).
        public static let uploadRejected = Code(rawValue: "chat.upload_rejected")
        /// The server's answer could not be read.
        public static let invalidResponse = Code(rawValue: "chat.invalid_response")
        /// The call needs something the client was not configured with.
        public static let misconfigured = Code(rawValue: "chat.misconfigured")
        /// The event connection was refused for good (bad key or token).
        public static let connectionRefused = Code(rawValue: "chat.connection_refused")
        /// The request was refused before it was sent (for example a custom field named like a
        /// server field).
        public static let invalidRequest = Code(rawValue: "chat.invalid_request")
        /// The server answered a send with an error message instead of posting it (for example,
        /// the channel is frozen); `message` carries its reason.
        public static let messageRefused = Code(rawValue: "chat.message_refused")
        /// A download's link could not be refreshed or the file is gone.
        public static let downloadFailed = Code(rawValue: "chat.download_failed")
        /// A call would have waited longer than its client's ``RateBudget`` allows; it was not
        /// sent.
        public static let budgetExceeded = Code(rawValue: "chat.budget_exceeded")
        /// A capture of events to replay has a line that is not an event.
        public static let invalidCapture = Code(rawValue: "chat.invalid_capture")
        /// The code's name.
        public var description: String { rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// Stream's error code (4 input, 16 not found, 17 not allowed, 40 token expired, ...), when the server answered.
    public let streamCode: Int?
    /// The HTTP status, when the server answered.
    public let httpStatus: Int?
    /// What went wrong.
    public let message: String
    /// The transport failure underneath, if any.
    public let transportError: TransportError?
    /// How many times the call was tried before it failed (1 when it was not retried).
    public let attempts: Int

    /// An error.
    public init(
        code: Code, message: String, streamCode: Int? = nil, httpStatus: Int? = nil, transportError: TransportError? = nil, attempts: Int = 1
    ) {
        self.code = code
        self.message = message
        self.streamCode = streamCode
        self.httpStatus = httpStatus
        self.transportError = transportError
        self.attempts = attempts
    }

    /// Whether the failure may pass if the call is tried again later: the service could not be
    /// reached, the connection broke or timed out, the service failed (5xx) or was busy (429).
    /// A refusal (4xx), an unreadable answer or a bad request will fail the same way again.
    public var isTransient: Bool {
        if let transportError { return [.connectionFailed, .connectionLost, .timedOut].contains(transportError.code) }
        guard code == .api, let httpStatus else { return false }
        return httpStatus == 429 || (500...599).contains(httpStatus)
    }

    /// The same error after `attempts` tries, its message ending with `note`.
    func withAttempts(_ attempts: Int, note: String) -> ChatClientError {
        ChatClientError(
            code: code, message: message + note, streamCode: streamCode, httpStatus: httpStatus, transportError: transportError, attempts: attempts)
    }

    /// Whether no connection to the server could be made at all (nothing listening, unknown
    /// host), as opposed to a connection that broke or an answer that refused the call.
    public var isServerUnreachable: Bool { transportError?.code == .connectionFailed }

    /// `[chat.api] code 4 (HTTP 400): message`.
    public var description: String {
        var text = "[\(code)] "
        if let streamCode { text += "code \(streamCode) " }
        if let httpStatus { text += "(HTTP \(httpStatus)) " }
        return text + message
    }
}
