import ChatModels
import Foundation

/// Turns a file link into the request that fetches it: rewrite the URL, add headers (a
/// signing service, an auth header, another host). As in Stream's SDK, with async calls.
public protocol CDNRequester: Sendable {
    /// The request for an image.
    func imageRequest(for url: URL, options: ImageRequestOptions) async throws -> CDNRequest
    /// The request for any other file.
    func fileRequest(for url: URL, options: FileRequestOptions) async throws -> CDNRequest
}

/// A fetchable request: the (possibly rewritten) URL and headers.
public struct CDNRequest: Sendable {
    /// The URL to fetch.
    public var url: URL
    /// Extra headers.
    public var headers: [String: String]?
    /// A cache key that stays the same when only the signature changes.
    public var cachingKey: String?

    /// A request.
    public init(url: URL, headers: [String: String]? = nil, cachingKey: String? = nil) {
        self.url = url
        self.headers = headers
        self.cachingKey = cachingKey
    }
}

/// Options of an image request.
public struct ImageRequestOptions: Sendable {
    /// Server-side resizing (width, height in pixels), if wanted.
    public var resize: (width: Int, height: Int)?
    /// Options.
    public init(resize: (width: Int, height: Int)? = nil) { self.resize = resize }
}

/// Options of a file request.
public struct FileRequestOptions: Sendable {
    /// Options.
    public init() {}
}

/// The default requester: Stream CDN links are fetched as they are; on a Stream CDN host an
/// image resize appends `w`, `h` and `resize=clip`, keeping the signature.
public struct StreamCDNRequester: CDNRequester {
    /// The default requester.
    public init() {}

    /// The link itself, with resize parameters for Stream CDN images.
    public func imageRequest(for url: URL, options: ImageRequestOptions) async throws -> CDNRequest {
        guard let resize = options.resize, url.host?.contains("stream-io-cdn.com") == true,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return CDNRequest(url: url, cachingKey: StreamCDNRequester.cachingKey(url)) }
        components.queryItems = (components.queryItems ?? []) + [
            URLQueryItem(name: "w", value: String(resize.width)), URLQueryItem(name: "h", value: String(resize.height)),
            URLQueryItem(name: "resize", value: "clip"),
        ]
        return CDNRequest(url: components.url ?? url, cachingKey: StreamCDNRequester.cachingKey(url))
    }

    /// The link itself.
    public func fileRequest(for url: URL, options: FileRequestOptions) async throws -> CDNRequest {
        CDNRequest(url: url, cachingKey: StreamCDNRequester.cachingKey(url))
    }

    /// The link without its signature, so the key survives re-signing.
    static func cachingKey(_ url: URL) -> String {
        SignedLink(url).unsignedURL.absoluteString
    }
}
