import ChatBotKit
import ChatModels
import Foundation

/// Why a webhook request was not taken: it is not signed with the app's secret, not for this
/// app, encoded in a way the service does not use, or not an event. Each says what to check.
public struct WebhookError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String
        /// A code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// No `X-Signature` header.
        public static let signatureMissing = Code(rawValue: "webhook.signature_missing")
        /// The signature is not the body's HMAC with the app's secret.
        public static let signatureMismatch = Code(rawValue: "webhook.signature_mismatch")
        /// `X-Api-Key` names another app.
        public static let apiKeyMismatch = Code(rawValue: "webhook.api_key_mismatch")
        /// A `Content-Encoding` other than gzip.
        public static let unsupportedEncoding = Code(rawValue: "webhook.unsupported_encoding")
        /// Said to be gzip, and is not (or is cut short).
        public static let corruptGzip = Code(rawValue: "webhook.corrupt_gzip")
        /// Larger than the intake takes, compressed or not.
        public static let tooLarge = Code(rawValue: "webhook.too_large")
        /// Signed, but not a JSON event with a `type`.
        public static let notAnEvent = Code(rawValue: "webhook.not_an_event")
        /// Signed, but not a custom command request (`{"message": {...}, "user", "form_data"}`).
        public static let notACommandRequest = Code(rawValue: "webhook.not_a_command_request")
        /// Signed, but not a before-send request (`{"message": {...}, "user", "channel", "request_info"}`).
        public static let notABeforeSendRequest = Code(rawValue: "webhook.not_a_before_send_request")
        /// No bot judges messages before they are sent (yet, or any more): the service lets them through.
        public static let noBot = Code(rawValue: "webhook.no_bot")
        /// The code's name.
        public var description: String { rawValue }
    }

    /// The kind.
    public let code: Code
    /// What happened and what to check.
    public let message: String

    /// An error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The HTTP status the intake answers with: 401 for what fails the signature or key, 413
    /// for a body too large, 415 for an encoding it does not read, 503 while no bot judges
    /// messages before they are sent (the send path does not try again; it lets the message
    /// through), 400 otherwise. None of the 4xx is one the service tries again (it retries 408,
    /// 429 and 5xx only): a request refused once would be refused every time.
    public var httpStatus: Int {
        switch code {
        case .signatureMissing, .signatureMismatch, .apiKeyMismatch: 401
        case .tooLarge: 413
        case .unsupportedEncoding: 415
        case .noBot: 503
        default: 400
        }
    }

    /// `{"code": …, "message": …}`: the body of the refusal.
    var jsonBody: Data { JSONWriter.data(.object(["code": .string(code.rawValue), "message": .string(message)])) }

    /// `[code] message`.
    public var description: String { "[\(code)] \(message)" }
}
