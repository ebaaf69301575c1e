/// Why spans could not be sent to the collector.
public struct TelemetryError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, in a form code can match.
    public enum Code: String, Sendable {
        /// The collector could not be reached, or did not answer in time.
        case unreachable = "tracing.unreachable"
        /// The collector answered with an HTTP error.
        case refused = "tracing.refused"
    }

    /// What went wrong.
    public let code: Code
    /// What happened and what to check.
    public let message: String
    /// The collector's HTTP status, when it answered.
    public let httpStatus: Int?
    /// How long the collector asked to wait before trying again (`Retry-After`).
    let retryAfter: Duration?

    /// An error with its code and message.
    public init(code: Code, message: String, httpStatus: Int? = nil) {
        self.init(code: code, message: message, httpStatus: httpStatus, retryAfter: nil)
    }

    init(code: Code, message: String, httpStatus: Int?, retryAfter: Duration?) {
        self.code = code
        self.message = message
        self.httpStatus = httpStatus
        self.retryAfter = retryAfter
    }

    /// The message, prefixed with the code.
    public var description: String { "\(code.rawValue): \(message)" }
}
