import ChatModels
import Foundation
import Tracing

/// Everything the dev server needs to start. Every field has a documented default, so
/// `DevServerConfiguration(dataDirectory:)` is a working server on a free loopback port.
public struct DevServerConfiguration: Sendable {
    /// The address to bind; loopback by default so nothing outside the machine can connect.
    public var host: String
    /// The port; 0 picks a free one (the bound port is reported once the server runs).
    public var port: Int
    /// Where the SQLite database and the uploaded files live.
    public var dataDirectory: URL
    /// The API key clients must send as `api_key`.
    public var apiKey: String
    /// The secret that signs tokens and file links. Never logged.
    public var apiSecret: String
    /// Whether development tokens (signature `devtoken`) are accepted, like `disable_auth_checks`.
    public var acceptsDevTokens: Bool
    /// Whether the web playground is served at `/`: in dev mode only, the mode that accepts
    /// development tokens, since the playground hands out user tokens to whoever asks.
    public var servesPlayground: Bool { acceptsDevTokens }
    /// A JavaScript module of your own payload renderers (it calls `registerPayloadRenderer`
    /// of `/playground/payload-cards.js`), which the playground loads before it shows messages;
    /// read afresh on each load of the page, so a change shows on reload.
    public var playgroundRenderers: URL?
    /// How long a signed file link stays valid (14 days, as on the hosted service).
    public var linkLifetime: Duration
    /// How often every connection gets a `health.check`.
    public var healthCheckInterval: Duration
    /// Requests allowed per endpoint and platform in each rate-limit window before answering 429
    /// (code 9), for endpoints `rateLimits` does not name.
    public var defaultRateLimit: Int
    /// Limits of single endpoints, overriding `defaultRateLimit` (`[.sendMessage: 60]`), to try
    /// a bot against the limits of a production app.
    public var rateLimits: [EndpointName: Int] = [:]
    /// How long one rate-limit window lasts: a minute, as on the hosted service. Whole seconds
    /// (`x-ratelimit-reset` is in Unix seconds); shorter windows make tests of waiting quick.
    public var rateLimitWindow: Duration = .seconds(60)
    /// Largest JSON request body accepted.
    public var maximumJSONBodySize: Int
    /// Upload limits applied when the app settings have none (`size_limit` 0 means this).
    public var defaultUploadSizeLimit: Int64
    /// Initial upload rules for `/file` (extensions with their dot, MIME types with `*` wildcards).
    public var initialFileUploadConfig: UploadRules
    /// Initial upload rules for `/image`.
    public var initialImageUploadConfig: UploadRules
    /// How many events a slow WebSocket client may have queued before it is disconnected.
    public var maximumQueuedEventsPerConnection: Int
    /// Whether the first link of a message's text gets a preview attachment (`url_enrichment`,
    /// on by default as on the hosted service's `messaging` type). The server fetches the link.
    public var enrichesURLs: Bool
    /// How long fetching one link for its preview may take (the hosted service waits about 4 s).
    public var linkPreviewTimeout: Duration
    /// The most events one `/sync` returns; asked for more, it answers HTTP 400, as the hosted
    /// service does beyond 2,000.
    public var maximumSyncedEvents = 2000
    /// How long the app's webhook (`webhook_url`) has to answer one delivery before it counts
    /// as timed out and is tried again: 6 s on the hosted service.
    public var webhookTimeout: Duration = .seconds(6)
    /// How long all the attempts at one webhook delivery may take together (15 s on the hosted
    /// service); no attempt starts after it.
    public var webhookDeadline: Duration = .seconds(15)
    /// How long the app's `custom_action_handler_url` has to answer a custom command or an
    /// action on one; the user who sent it waits meanwhile, and then sees an error message.
    public var customActionTimeout: Duration = .seconds(6)
    /// Where the spans of the requests go (each a child of the caller's span when it sends
    /// `traceparent`); nil for the process's tracer (`InstrumentationSystem`), a no-op until
    /// an app bootstraps one.
    public var tracer: (any Tracer)?

    /// A configuration; only the data directory is required.
    public init(
        host: String = "127.0.0.1", port: Int = 0, dataDirectory: URL, apiKey: String = "dev-key",
        apiSecret: String = "a-dev-secret-of-at-least-32-bytes", acceptsDevTokens: Bool = false,
        linkLifetime: Duration = .seconds(14 * 24 * 3600), healthCheckInterval: Duration = .seconds(10),
        defaultRateLimit: Int = 10_000, maximumJSONBodySize: Int = 2 * 1024 * 1024,
        defaultUploadSizeLimit: Int64 = 100 * 1024 * 1024, initialFileUploadConfig: UploadRules = UploadRules(),
        initialImageUploadConfig: UploadRules = UploadRules(), maximumQueuedEventsPerConnection: Int = 10_000,
        enrichesURLs: Bool = true, linkPreviewTimeout: Duration = .seconds(4)
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.apiKey = apiKey
        self.apiSecret = apiSecret
        self.acceptsDevTokens = acceptsDevTokens
        self.linkLifetime = linkLifetime
        self.healthCheckInterval = healthCheckInterval
        self.defaultRateLimit = defaultRateLimit
        self.maximumJSONBodySize = maximumJSONBodySize
        self.defaultUploadSizeLimit = defaultUploadSizeLimit
        self.initialFileUploadConfig = initialFileUploadConfig
        self.initialImageUploadConfig = initialImageUploadConfig
        self.maximumQueuedEventsPerConnection = maximumQueuedEventsPerConnection
        self.enrichesURLs = enrichesURLs
        self.linkPreviewTimeout = linkPreviewTimeout
    }
}

/// Upload rules of one kind (`file_upload_config` or `image_upload_config` on the wire).
public struct UploadRules: Sendable, Hashable {
    /// Only these extensions (with their leading dot) are accepted, when not empty.
    public var allowedFileExtensions: [String]
    /// These extensions are refused.
    public var blockedFileExtensions: [String]
    /// Only these MIME types (`image/*` wildcards allowed) are accepted, when not empty.
    public var allowedMimeTypes: [String]
    /// These MIME types are refused.
    public var blockedMimeTypes: [String]
    /// The largest upload in bytes; 0 means the server default (100 MB).
    public var sizeLimit: Int64

    /// Rules; empty lists allow everything.
    public init(
        allowedFileExtensions: [String] = [], blockedFileExtensions: [String] = [], allowedMimeTypes: [String] = [],
        blockedMimeTypes: [String] = [], sizeLimit: Int64 = 0
    ) {
        self.allowedFileExtensions = allowedFileExtensions
        self.blockedFileExtensions = blockedFileExtensions
        self.allowedMimeTypes = allowedMimeTypes
        self.blockedMimeTypes = blockedMimeTypes
        self.sizeLimit = sizeLimit
    }
}

extension Duration {
    /// The duration in seconds as a `Double`.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
