import ChatLocking
import ChatModels
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Everything the routes share: the store, the file store, signing, authentication, the
/// connection hub and the cached app settings.
final class DevServerState: Sendable {
    let configuration: DevServerConfiguration
    let store: DevStore
    let files: FileStore
    let signer: LinkSigner
    let verifier: TokenVerifier
    let hub: ConnectionHub
    let clock = MonotonicClock()
    let rateLimiter: RateLimiter
    let logger: Logger
    let enricher: URLEnricher
    /// Work that outlives its request (link previews added after the answer); awaited on shutdown.
    let background = BackgroundTasks()
    /// Signs what is posted to the app's webhook and custom command handler.
    let payloadSigner: PayloadSigner
    /// Posts the app's events to its `webhook_url`, when it has one.
    let webhooks: WebhookSender
    /// The app's custom commands and the commands of its channel types.
    let commands: CommandCatalog
    /// The ephemeral messages custom commands answered, until an action posts or removes them.
    let ephemeral = EphemeralMessages()
    private let settings: Locked<AppSettings>
    /// The address the server is reachable at, set once it is bound.
    let boundAddress = Locked<String?>(nil)
    /// The deactivated and deleted users, with why: their tokens are refused at once, without
    /// a read of the store per request.
    let disabledUsers: Locked<[String: String]>
    /// The tasks of bulk user and channel changes and of exports, by id, while the server runs.
    let tasks = Locked<[String: JSONObject]>([:])
    /// The files of channel exports (`/files/…` paths), by task id, signed afresh on each read.
    let exportFiles = Locked<[String: String]>([:])
    /// Sends `notification.reminder_due` when reminders come due, while the server runs.
    let reminders = ReminderAlarm()
    /// Test hooks: failures the server injects before handling matching requests.
    let faults = Locked<[InjectedFault]>([])

    static let knownChannelTypes: Set<String> = ["messaging", "livestream", "team", "gaming", "commerce"]

    init(configuration: DevServerConfiguration, logger: Logger) async throws {
        self.configuration = configuration
        self.logger = logger
        do {
            store = try DevStore(directory: configuration.dataDirectory)
            files = try FileStore(dataDirectory: configuration.dataDirectory)
        } catch {
            throw DevServerError.dataFolder(configuration.dataDirectory, because: error)
        }
        signer = LinkSigner(secret: configuration.apiSecret, lifetime: configuration.linkLifetime)
        verifier = await TokenVerifier(
            apiKey: configuration.apiKey, apiSecret: configuration.apiSecret, acceptsDevTokens: configuration.acceptsDevTokens)
        hub = ConnectionHub(maximumQueued: configuration.maximumQueuedEventsPerConnection)
        rateLimiter = RateLimiter(
            defaultLimit: configuration.defaultRateLimit, limits: configuration.rateLimits, window: configuration.rateLimitWindow)
        enricher = URLEnricher(scraper: LinkScraper(timeout: configuration.linkPreviewTimeout), logger: logger)
        payloadSigner = PayloadSigner(apiSecret: configuration.apiSecret)
        webhooks = WebhookSender(
            apiKey: configuration.apiKey, signer: payloadSigner, timeout: configuration.webhookTimeout,
            deadline: configuration.webhookDeadline, logger: logger)
        let (stored, catalog, disabled) = try await store.read { db in
            (try SettingsTable.fetch(db, "app")?.objectValue, try CommandCatalog(db), try UsersTable.disabled(db))
        }
        commands = catalog
        disabledUsers = Locked(disabled)
        var initial = AppSettings(
            fileUploadConfig: configuration.initialFileUploadConfig, imageUploadConfig: configuration.initialImageUploadConfig,
            other: [:])
        if let stored { try? initial.apply(stored) }
        settings = Locked(initial)
    }

    var appSettings: AppSettings { settings.withLock { $0 } }

    /// Where custom commands are answered; nil while the app has no `custom_action_handler_url`.
    var customActionHandler: CustomActionHandler? {
        CustomActionHandler(
            appSettings.other, apiKey: configuration.apiKey, signer: payloadSigner, timeout: configuration.customActionTimeout,
            logger: logger)
    }

    /// Where new messages are checked before they are stored; nil while the app has no
    /// `before_message_send_hook_url`.
    var beforeSendHook: BeforeSendHook? {
        BeforeSendHook(appSettings.other, apiKey: configuration.apiKey, signer: payloadSigner, logger: logger)
    }

    func updateSettings(_ patch: JSONObject) async throws -> AppSettings {
        var updated = appSettings
        try updated.apply(patch)
        let json = JSONObject([
            ("file_upload_config", RawJSON.object(AppSettings.json(updated.fileUploadConfig))),
            ("image_upload_config", RawJSON.object(AppSettings.json(updated.imageUploadConfig))),
            ("async_url_enrich_enabled", RawJSON.bool(updated.asyncURLEnrichment)),
        ] + updated.other.members.map { ($0.key, $0.value) })
        try await store.write { db in try SettingsTable.store(db, "app", .object(json)) }
        settings.withLock { $0 = updated }
        return updated
    }

    /// When a message written with this request `body` gets its link preview.
    func enrichmentMode(_ body: JSONObject) -> URLEnricher.Mode {
        guard configuration.enrichesURLs, !(body["skip_enrich_url"]?.flag ?? false) else { return .off }
        return appSettings.asyncURLEnrichment ? .afterAnswering : .beforeAnswering
    }

    /// Authenticates a REST request: `api_key` query item, `Authorization` and `stream-auth-type` headers.
    func authenticate(_ request: Request) async throws(APIError) -> Principal {
        let principal = try await verifier.authenticate(
            apiKey: request.query("api_key"),
            token: request.headers[.authorization] ?? request.query("authorization"),
            authType: request.headers[HTTPField.Name("stream-auth-type")!])
        try requireEnabled(principal)
        return principal
    }

    /// Refuses (403, code 17) the token of a user that is deactivated or deleted.
    func requireEnabled(_ principal: Principal) throws(APIError) {
        guard let userId = principal.userId, let reason = disabledUsers.withLock({ $0[userId] }) else { return }
        throw APIError(code: 17, status: .forbidden, message: reason)
    }

    /// Authenticates a request that only a server token may make; another is refused (403)
    /// saying what it cannot do (`"app settings can only be changed"`) and with what.
    func requireServer(_ request: Request, _ operation: String, _ refusal: String) async throws(APIError) {
        guard try await authenticate(request) == .server else {
            throw APIError.forbidden(operation, "\(refusal) with a server token")
        }
    }

    /// `http://host:port` as the client reached us, for links in answers.
    func baseURL(for request: Request) -> String {
        if let host = request.head.authority { return "http://\(host)" }
        return boundBaseURL
    }

    /// `http://host:port` as bound, for links in what no request asked for (due reminders).
    var boundBaseURL: String { boundAddress.withLock { $0 } ?? "http://\(configuration.host):\(configuration.port)" }

    func renderer(baseURL: String) async -> Renderer {
        Renderer(
            signer: signer, baseURL: baseURL, onlineUsers: await hub.onlineUserIds, now: clock.now(), enrichesURLs: configuration.enrichesURLs,
            commands: commands.snapshot)
    }

    func renderer(for request: Request) async -> Renderer {
        await renderer(baseURL: baseURL(for: request))
    }
}

/// A failure the server answers with instead of handling a request, for testing how clients
/// cope with 5xx and 429 answers.
public struct InjectedFault: Sendable {
    /// Only requests whose path contains this are affected.
    public var pathContains: String
    /// The HTTP status to answer.
    public var status: Int
    /// The Stream error code in the envelope.
    public var code: Int
    /// How many matching requests fail before the server behaves normally again.
    public var remaining: Int
    /// Seconds until the rate-limit window resets (for 429 answers).
    public var resetAfterSeconds: Int

    /// A fault.
    public init(pathContains: String, status: Int, code: Int = -1, count: Int = 1, resetAfterSeconds: Int = 1) {
        self.pathContains = pathContains
        self.status = status
        self.code = code
        self.remaining = count
        self.resetAfterSeconds = resetAfterSeconds
    }
}
