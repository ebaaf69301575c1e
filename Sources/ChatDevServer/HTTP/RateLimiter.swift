import ChatLocking
import Foundation
import HTTPTypes
import Hummingbird

/// Stream's per-endpoint, per-minute rate limits: every answer carries lower-case
/// `x-ratelimit-limit`, `x-ratelimit-remaining` and `x-ratelimit-reset` (Unix seconds), and a
/// request over the limit gets 429 with code 9. Windows are fixed minutes, as on the service.
final class RateLimiter: Sendable {
    private struct Window {
        var minute: Int64
        var used: Int
    }

    let limit: Int
    private let windows = Locked<[String: Window]>([:])

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts one request to `endpoint`; returns the headers to send and whether it is allowed.
    func take(_ endpoint: String, now: Date = Date()) -> (headers: HTTPFields, allowed: Bool) {
        let minute = Int64(now.timeIntervalSince1970) / 60
        let used = windows.withLock { windows -> Int in
            var window = windows[endpoint] ?? Window(minute: minute, used: 0)
            if window.minute != minute { window = Window(minute: minute, used: 0) }
            window.used += 1
            windows[endpoint] = window
            return window.used
        }
        let headers: HTTPFields = [
            RateLimiter.limitField: String(limit),
            RateLimiter.remainingField: String(max(0, limit - used)),
            RateLimiter.resetField: String((minute + 1) * 60),
        ]
        return (headers, used <= limit)
    }

    static let limitField = HTTPField.Name("x-ratelimit-limit")!
    static let remainingField = HTTPField.Name("x-ratelimit-remaining")!
    static let resetField = HTTPField.Name("x-ratelimit-reset")!
}

/// Applies the ``RateLimiter`` to each endpoint and adds its headers to every answer.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = DevRequestContext
    let limiter: RateLimiter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let endpoint = "\(request.method) \(context.coreContext.endpointPath.value ?? request.uri.path)"
        let (headers, allowed) = limiter.take(endpoint)
        guard allowed else {
            var error = APIError(
                code: 9, status: .tooManyRequests,
                message: "\(endpoint) failed with error: \"Too many requests, check response headers for more info.\"")
            error.headers = headers
            return try error.response(from: request, context: context)
        }
        var response = try await next(request, context)
        response.headers.append(contentsOf: headers)
        return response
    }
}
