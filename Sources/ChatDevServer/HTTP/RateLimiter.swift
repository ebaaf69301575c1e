import ChatLocking
import ChatModels
import Foundation
import HTTPTypes
import Hummingbird

/// Stream's rate limits: each endpoint has a quota per platform (server side, Android, iOS, web)
/// per fixed window of a minute. Every answer carries lower-case `x-ratelimit-limit`,
/// `x-ratelimit-remaining` and `x-ratelimit-reset` (Unix seconds), a request over the quota
/// gets 429 with code 9, and `GET /rate_limits` reports the quotas.
final class RateLimiter: Sendable {
    /// One endpoint's quota on one platform in the current window.
    struct Quota: Equatable {
        var limit: Int
        var remaining: Int
        /// When the window ends, in Unix seconds.
        var reset: Int64
    }

    private struct Bucket: Hashable {
        var platform: RequestPlatform
        var endpoint: EndpointName
    }

    private struct Window {
        var index: Int64
        var used: Int
    }

    let defaultLimit: Int
    let limits: [EndpointName: Int]
    /// The window's length in whole seconds.
    let windowSeconds: Int64
    private let windows = Locked<[Bucket: Window]>([:])
    private let served = Locked<[EndpointName: Int]>([:])

    init(defaultLimit: Int, limits: [EndpointName: Int] = [:], window: Duration = .seconds(60)) {
        self.defaultLimit = defaultLimit
        self.limits = limits
        windowSeconds = max(1, window.components.seconds)
    }

    /// Counts one request to `endpoint` from `platform`; returns the headers to send and whether
    /// it is allowed.
    func take(_ endpoint: EndpointName, platform: RequestPlatform, now: Date = Date()) -> (headers: HTTPFields, allowed: Bool) {
        let index = windowIndex(now)
        served.withLock { $0[endpoint, default: 0] += 1 }
        let used = windows.withLock { windows -> Int in
            let bucket = Bucket(platform: platform, endpoint: endpoint)
            var window = windows[bucket] ?? Window(index: index, used: 0)
            if window.index != index { window = Window(index: index, used: 0) }
            window.used += 1
            windows[bucket] = window
            return window.used
        }
        let quota = quota(of: endpoint, used: used, window: index)
        return (RateLimiter.headers(quota), used <= quota.limit)
    }

    /// How many requests each endpoint took since the server started, on every platform,
    /// refused ones included.
    var requestCounts: [EndpointName: Int] { served.withLock { $0 } }

    /// The quotas of `endpoints` on `platform` as they stand, without counting anything.
    func quotas(_ endpoints: [EndpointName], platform: RequestPlatform, now: Date = Date()) -> [EndpointName: Quota] {
        let index = windowIndex(now)
        return windows.withLock { windows in
            var quotas: [EndpointName: Quota] = [:]
            for endpoint in endpoints {
                let window = windows[Bucket(platform: platform, endpoint: endpoint)]
                quotas[endpoint] = quota(of: endpoint, used: window?.index == index ? window!.used : 0, window: index)
            }
            return quotas
        }
    }

    /// `endpoint`'s quota after `used` requests in the window numbered `window`.
    private func quota(of endpoint: EndpointName, used: Int, window: Int64) -> Quota {
        let limit = limits[endpoint] ?? defaultLimit
        return Quota(limit: limit, remaining: max(0, limit - used), reset: (window + 1) * windowSeconds)
    }

    private func windowIndex(_ now: Date) -> Int64 {
        Int64(now.timeIntervalSince1970.rounded(.down)) / windowSeconds
    }

    static func headers(_ quota: Quota) -> HTTPFields {
        [limitField: String(quota.limit), remainingField: String(quota.remaining), resetField: String(quota.reset)]
    }

    static let limitField = HTTPField.Name("x-ratelimit-limit")!
    static let remainingField = HTTPField.Name("x-ratelimit-remaining")!
    static let resetField = HTTPField.Name("x-ratelimit-reset")!
}

/// Applies the ``RateLimiter`` to each API endpoint and adds its headers to every answer. The
/// file host's routes are not API calls and count against nothing, as with the service's CDN.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = DevRequestContext
    let limiter: RateLimiter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let route = context.coreContext.endpointPath.value ?? request.uri.path
        guard let endpoint = EndpointRoutes.name(method: request.method.rawValue, route: route) else {
            return try await next(request, context)
        }
        let (headers, allowed) = limiter.take(endpoint, platform: RequestPlatform(request))
        guard allowed else {
            var error = APIError(
                code: 9, status: .tooManyRequests,
                message: "\(endpoint) failed with error: \"Too many requests, check response headers for more info.\"")
            error.headers = headers
            return try error.response(from: request, context: context)
        }
        var response = try await next(request, context)
        // An injected 429 brings quota headers of its own; two values each would contradict.
        if response.headers[RateLimiter.limitField] == nil { response.headers.append(contentsOf: headers) }
        return response
    }
}
