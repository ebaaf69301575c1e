import ChatLocking
import ChatModels
import ChatTransport
import CoreMetrics
import Foundation
import Logging
import Tracing

/// A client of the Stream Chat API: REST calls, uploads, downloads with link refresh, and
/// event connections.
///
/// ```swift
/// let client = ChatClient(configuration: .init(
///     apiKey: "dev-key", baseURL: URL(string: "http://127.0.0.1:8787")!,
///     credentials: .apiSecret(secret), userId: "workout-bot"))
/// client.registerAttachment(WorkoutAttachmentPayload.self)
/// let sent = try await client.channel("messaging:general").sendMessage(text: "hello")
/// ```
public final class ChatClient: Sendable {
    /// The configuration it was made with.
    public let configuration: ChatClientConfiguration
    let http: any HTTPTransport
    let webSocket: any WebSocketTransport
    let logger: Logger
    private let registryStorage = Locked(AttachmentPayloadRegistry())
    private let settingsCache = Locked<(settings: AppSettings, fetchedAt: ContinuousClock.Instant)?>(nil)
    let refreshes = SingleFlight<String, Message>()
    let refreshedMessages = Locked(RefreshedMessages())
    /// Where files are uploaded (the chat API's own CDN by default).
    public let cdnStorage: any CDNStorage
    /// How file links are turned into requests (unchanged by default).
    public let cdnRequester: any CDNRequester
    /// Fills custom payloads in after their file was uploaded.
    public let uploadedAttachmentPostProcessor: (any UploadedAttachmentPostProcessor)?
    let signer: TokenSigner?
    let metrics: ClientMetrics
    let rateLimitLedger = RateLimitLedger()
    let budgetGate: BudgetGate?
    /// The calls held while the service is unreachable.
    let outageWatch: OutageWatch
    private let explicitTracer: (any Tracer)?

    /// A client; transports default to libcurl and libwebsockets. Its metrics (and those of the
    /// bots using it) go to `metricsFactory`, else to the one `MetricsSystem.bootstrap` set; its
    /// spans go to `tracer`, else to the one `InstrumentationSystem.bootstrap` set.
    public init(
        configuration: ChatClientConfiguration, http: (any HTTPTransport)? = nil, webSocket: (any WebSocketTransport)? = nil,
        cdnStorage: (any CDNStorage)? = nil, cdnRequester: (any CDNRequester)? = nil,
        uploadedAttachmentPostProcessor: (any UploadedAttachmentPostProcessor)? = nil,
        metricsFactory: (any MetricsFactory)? = nil, tracer: (any Tracer)? = nil, logger: Logger = Logger(label: "chatbotkit.client")
    ) {
        self.configuration = configuration
        budgetGate = configuration.rateBudget.map(BudgetGate.init)
        metrics = ClientMetrics(explicitFactory: metricsFactory)
        explicitTracer = tracer
        self.http = http ?? CurlHTTPTransport(caFile: configuration.caFile)
        self.webSocket = webSocket ?? LibWebSocketsTransport(caFile: configuration.caFile)
        self.logger = logger
        outageWatch = OutageWatch(tolerance: configuration.outageTolerance, user: configuration.userId, metrics: metrics, logger: logger)
        self.cdnRequester = cdnRequester ?? StreamCDNRequester()
        self.uploadedAttachmentPostProcessor = uploadedAttachmentPostProcessor
        if case .apiSecret(let secret) = configuration.credentials {
            signer = TokenSigner(secret: secret)
        } else {
            signer = nil
        }
        self.cdnStorage = cdnStorage ?? StreamCDNStorage()
    }

    /// Where this client's spans go (a span per call, and one per delivery of the bots using it):
    /// the tracer given at `init`, else the process's (no-op until an app bootstraps one).
    public var tracer: any Tracer { explicitTracer ?? InstrumentationSystem.tracer }

    /// Where this client's metrics go, and those of the bots and connections using it.
    public var metricsFactory: any MetricsFactory { metrics.factory }

    /// Calls waiting right now for the service to come back (also the `chatbotkit_calls_held` gauge).
    public var heldCalls: Int { outageWatch.heldCalls }

    /// The payload types attachments decode into; built-ins are registered from the start.
    public var registry: AttachmentPayloadRegistry { registryStorage.withLock { $0 } }

    /// Registers a custom payload type, as in Stream's SDK: `client.registerAttachment(WorkoutAttachmentPayload.self)`.
    public func registerAttachment<P: AttachmentPayload>(_ payloadType: P.Type) {
        registryStorage.withLock { $0.registerAttachment(payloadType) }
    }

    /// A handle for one channel.
    public func channel(_ cid: ChannelId) -> ChatChannel {
        ChatChannel(client: self, cid: cid)
    }

    /// The token REST calls send: a server token with a secret, else the user token.
    var restToken: String {
        switch configuration.credentials {
        case .apiSecret: signer!.serverToken()
        case .userToken(let token): token
        }
    }

    /// A token for `userId`'s event connection.
    func connectionToken(for userId: String) throws -> String {
        switch configuration.credentials {
        case .apiSecret: return signer!.userToken(for: userId)
        case .userToken(let token):
            guard configuration.userId == nil || configuration.userId == userId else {
                throw ChatClientError(
                    code: .misconfigured, message: "the configured user token is for \(configuration.userId ?? "?"), not \(userId)")
            }
            return token
        }
    }

    /// The user acting in a call: the one given, else the configured one.
    func actingUser(_ userId: String?, operation: String) throws -> String? {
        if case .userToken = configuration.credentials { return nil }
        guard let user = userId ?? configuration.userId else {
            throw ChatClientError(
                code: .misconfigured, message: "\(operation) needs an acting user: pass one or set ChatClientConfiguration.userId")
        }
        return user
    }

    // MARK: App settings

    /// The app's upload rules, cached for a minute (they are read before every upload).
    public func appSettings(refresh: Bool = false) async throws -> AppSettings {
        if !refresh, let cached = settingsCache.withLock({ $0 }), ContinuousClock.now - cached.fetchedAt < .seconds(60) {
            return cached.settings
        }
        let response = try await perform(.get("/app", operation: "GetApp"))
        guard case .object(let app)? = response["app"] else {
            throw ChatClientError(code: .invalidResponse, message: "GET /app answered without an app object")
        }
        let settings = AppSettings(json: app)
        settingsCache.withLock { $0 = (settings, .now) }
        return settings
    }

    /// Changes app settings (`PATCH /app`); needs the app secret.
    public func updateAppSettings(_ settings: JSONObject) async throws {
        _ = try await perform(Endpoint(method: "PATCH", path: "/app", body: settings, isIdempotent: true, operation: "UpdateApp"))
        settingsCache.withLock { $0 = nil }
    }
}
