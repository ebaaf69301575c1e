import ChatModels
import Foundation
import HTTPTypes
import Hummingbird

/// An error answered in Stream's envelope: `{code, message, StatusCode, duration, more_info, details}`.
///
/// The codes are Stream's (4 input error, 16 not found, 17 not allowed, 40–43 token problems,
/// 2 bad API key, 9 rate limited, 22 too large, -1 internal), so clients react as they would to
/// the hosted service.
public struct APIError: Error, Sendable, HTTPResponseError, CustomStringConvertible {
    /// The Stream error code.
    public let code: Int
    /// The HTTP status.
    public let status: HTTPResponse.Status
    /// What went wrong, in words a client developer can act on.
    public let message: String
    /// Extra headers (such as rate-limit headers on 429).
    public var headers: HTTPFields = [:]

    /// An error.
    public init(code: Int, status: HTTPResponse.Status, message: String) {
        self.code = code
        self.status = status
        self.message = message
    }

    /// Input error (code 4, HTTP 400) in Stream's `<Operation> failed with error: "<reason>"` form.
    static func input(_ operation: String, _ reason: String) -> APIError {
        APIError(code: 4, status: .badRequest, message: "\(operation) failed with error: \"\(reason)\"")
    }

    /// Not found (code 16, HTTP 404).
    static func notFound(_ operation: String, _ reason: String) -> APIError {
        APIError(code: 16, status: .notFound, message: "\(operation) failed with error: \"\(reason)\"")
    }

    /// Not allowed (code 17, HTTP 403).
    static func forbidden(_ operation: String, _ reason: String) -> APIError {
        APIError(code: 17, status: .forbidden, message: "\(operation) failed with error: \"\(reason)\"")
    }

    /// Authentication error (HTTP 401) with a token code (40 expired, 41 not valid yet, 43 bad signature, 2 key, 5 other).
    static func unauthorized(code: Int, _ reason: String) -> APIError {
        APIError(code: code, status: .unauthorized, message: reason)
    }

    /// Payload too big (code 22, HTTP 413).
    static func tooLarge(_ operation: String, _ reason: String) -> APIError {
        APIError(code: 22, status: .contentTooLarge, message: "\(operation) failed with error: \"\(reason)\"")
    }

    /// The envelope body.
    func payload(duration: String) -> APIErrorPayload {
        APIErrorPayload(code: code, message: message, statusCode: status.code, duration: duration)
    }

    /// The envelope as a response (the duration is filled in by ``EnvelopeMiddleware``).
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let duration = (context as? DevRequestContext)?.durationText ?? "0.00ms"
        var response = Response.json(payload(duration: duration).json, status: status)
        response.headers.append(contentsOf: headers)
        return response
    }

    /// `code <n> (HTTP <status>): <message>`.
    public var description: String { "code \(code) (HTTP \(status.code)): \(message)" }
}
