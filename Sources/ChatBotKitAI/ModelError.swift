import ChatBotKit
import Foundation

/// Why a language model did not answer, or stopped answering: a code to act on, the service's
/// own words, and its HTTP status and `Retry-After` when it gave them.
public struct ModelError: Error, Sendable, Hashable, CustomStringConvertible, UserFacingError {
    /// What kind of failure it is.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String
        /// A code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Nothing answered at the model's URL (refused, unknown host, no answer in time).
        public static let unreachable = Code(rawValue: "model.unreachable")
        /// The service refused the API key (401, 403).
        public static let unauthorized = Code(rawValue: "model.unauthorized")
        /// The service does not know the model, or the URL is not an OpenAI-compatible API (404).
        public static let unknownModel = Code(rawValue: "model.unknown_model")
        /// The service is rate limiting the key (429); ``retryAfter`` says for how long, if it said.
        public static let rateLimited = Code(rawValue: "model.rate_limited")
        /// The service refused the request as it was (400, 422: too long for the context, a bad parameter).
        public static let badRequest = Code(rawValue: "model.bad_request")
        /// The service failed (5xx).
        public static let serverError = Code(rawValue: "model.server_error")
        /// The answer's stream broke off before it ended.
        public static let streamCut = Code(rawValue: "model.stream_cut")
        /// The answer's stream is not server-sent events of chat completion chunks.
        public static let malformedStream = Code(rawValue: "model.malformed_stream")
        /// The code's name.
        public var description: String { rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// What went wrong, with the service's own message where it gave one.
    public let message: String
    /// The HTTP status, when the service answered.
    public let httpStatus: Int?
    /// How long the service asked to wait (`Retry-After`), on a 429 or 503.
    public let retryAfter: Duration?

    /// An error.
    public init(code: Code, message: String, httpStatus: Int? = nil, retryAfter: Duration? = nil) {
        self.code = code
        self.message = message
        self.httpStatus = httpStatus
        self.retryAfter = retryAfter
    }

    /// `[model.unauthorized] (HTTP 401) message`.
    public var description: String {
        "[\(code)] " + (httpStatus.map { "(HTTP \($0)) " } ?? "") + message
    }

    /// What a chat user is told when a streamed answer fails this way.
    public var userFacingDescription: String {
        switch code {
        case .unreachable: "the AI service could not be reached. The bot's owner should check its llm url."
        case .unauthorized: "the AI service did not accept the bot's API key. The bot's owner should check its llm api_key."
        case .unknownModel: "the AI service does not know the model the bot asks for. The bot's owner should check its llm model."
        case .rateLimited:
            "the AI service is busy with too many requests" + (retryAfter.map { "; try again in \(Int($0.components.seconds) + 1) s." } ?? "; try again soon.")
        case .badRequest: "the AI service refused the question (\(message))."
        case .serverError: "the AI service failed. Try again in a moment."
        case .streamCut: "the connection to the AI service broke off."
        case .malformedStream: "the AI service sent an answer the bot could not read."
        default: message
        }
    }
}
