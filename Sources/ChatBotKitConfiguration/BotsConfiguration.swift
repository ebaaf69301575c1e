import ChatBotKit
import ChatClient
import ChatModels
import Foundation

/// The contents of `bots.yaml`: the chat server (hosted, or the embedded dev server) and the bots.
///
/// ```yaml
/// server:
///   api_key: ${CHAT_API_KEY:-dev-key}
///   api_secret: ${CHAT_API_SECRET:-a-dev-secret-of-at-least-32-bytes}
/// embedded:
///   port: 8787
/// bots:
///   - name: workout
///     kind: workout
///     channels: [messaging:general]
/// ```
/// Unknown keys, wrong types and bad values are errors with file, line and column.
public struct BotsConfiguration: Sendable {
    /// Where the bots connect.
    public struct Server: Sendable, Equatable {
        /// The hosted service's URL; nil runs the embedded dev server.
        public var url: URL?
        /// The API key.
        public var apiKey: String
        /// The API secret.
        public var apiSecret: Secret

        /// `text` as an http(s) URL with a host, the only kind a server can be reached at; nil
        /// for anything else (`server.url` and `bots --server` are both checked with this).
        public static func httpURL(_ text: String) -> URL? {
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else { return nil }
            return url
        }

        /// The key used when none is given: `$CHAT_API_KEY`, else the dev key of bots.yaml and
        /// the embedded server.
        public static var defaultAPIKey: String { Bot.defaultAPIKey }
        /// The secret used when none is given: `$CHAT_API_SECRET`, else the dev secret of
        /// bots.yaml and the embedded server.
        public static var defaultAPISecret: String { Bot.defaultAPISecret }
    }

    /// The embedded dev server, used when `server.url` is absent.
    public struct Embedded: Sendable, Equatable {
        /// The defaults: 127.0.0.1:8787, data in `.bots/data`, 14-day links.
        public init() {}

        /// Address to bind.
        public var host: String = Bot.devServerHost
        /// Port (0 picks a free one).
        public var port: Int = Bot.devServerPort
        /// Folder for the database and uploads.
        public var dataDirectory: String = ".bots/data"
        /// Lifetime of signed file links.
        public var linkLifetime: Duration = .seconds(14 * 86_400)
        /// Seconds between health checks.
        public var healthCheckInterval: Duration = .seconds(10)
        /// Whether development tokens are accepted (dev mode, which also serves the playground).
        public var acceptsDevTokens = false
        /// A JavaScript module of the bots' own payload renderers for the playground
        /// (`playground_renderers`), relative to the working folder as `data` is; nil for none.
        public var playgroundRenderers: String?
        /// Whether the first link of a message gets a preview attachment (`url_enrichment`).
        public var enrichesURLs = true
        /// Upload rules for `/file` (they also apply to `/image`, with only image types there).
        public var uploadSizeLimit: Int64?
        /// Extensions refused for uploads.
        public var blockedFileExtensions: [String] = []
        /// Extensions accepted for uploads (empty: all).
        public var allowedFileExtensions: [String] = []
        /// MIME types refused.
        public var blockedMimeTypes: [String] = []
        /// MIME types accepted (empty: all).
        public var allowedMimeTypes: [String] = []
        /// Requests a minute allowed per endpoint and platform (`rate_limits.default`).
        public var defaultRateLimit = 10_000
        /// Per-endpoint limits (`rate_limits: { SendMessage: 60 }`), to try bots against a
        /// production app's limits.
        public var rateLimits: [EndpointName: Int] = [:]
    }

    /// One bot.
    public struct BotEntry: Sendable {
        /// Its name (reply ids derive from it).
        public var name: String
        /// Which bot implementation runs it (`workout`, `moderation`, `archive`, ...).
        public var kind: String
        /// The user it acts as.
        public var user: String
        /// The channels it watches.
        public var channels: [ChannelId]
        /// How many channels it handles at the same time.
        public var concurrency: Int
        /// How long its handlers get to finish on shutdown.
        public var drainDeadline: Duration
        /// Whether its uploads go through a `DeduplicatingCDNStorage` (`reuse_uploads`): a
        /// file it sent before, unchanged, gets the earlier upload's link instead of a new upload,
        /// also after a restart (the links are kept in ``BotsConfiguration/uploadRecordFile(for:under:)``).
        public var reusesUploads = false
        /// How far back it catches up on what it missed when it starts again (`catch_up`, a
        /// day by default); nil (`catch_up: off`) starts from the moment it connects.
        public var catchUp: Duration? = .seconds(86_400)
        /// The limit it keeps to on its own calls (`rate_budget`), below the app's quotas, which
        /// every bot and user of the app share; nil for none.
        public var rateBudget: RateBudget? = nil
        /// How many new messages of each sender it handles (`sender_limit`); nil for no limit.
        /// `bots run` puts a `SenderLimit` around the bot its kind makes.
        public var senderLimit: SenderLimit.Rule? = nil
        /// How long its calls and handlers keep trying while the service is unreachable
        /// (`outage_tolerance`, 10 minutes by default); past it a message goes to the dead letters.
        public var outageTolerance: Duration = .seconds(600)
        /// Where its events come from (`events: webhook`, or its own WebSocket by default).
        public var events: EventTransport = .websocket
        /// The whole entry, for kind-specific options (read them with ``ConfigNode``).
        public var node: ConfigNode
    }

    /// The server.
    public var server: Server
    /// The embedded dev server's settings.
    public var embedded: Embedded
    /// The bots.
    public var bots: [BotEntry]
    /// Where `bots run` serves the bots' metrics; nil (no `metrics:` section) serves none.
    public var metrics: MetricsEndpoint?
    /// The leases that share the bots' channels out among several `bots run`; nil (no
    /// `scale_out:` section) handles every channel here.
    public var scaleOut: ScaleOut? = nil
    /// Where `bots run` sends its spans; nil (no `tracing:` section) sends none.
    public var tracing: TracingExport? = nil
    /// Where `bots run` takes the app's webhook requests; nil (no `webhook:` section) takes none.
    public var webhook: WebhookEndpoint? = nil
    /// The language model of the bots that answer with one (`llm:`); nil configures none. A
    /// bot's own `llm:` overrides it (``BotKindEnvironment/model(for:)``).
    public var llm: ModelSettings? = nil

    /// The keys a bot entry may have besides the ones its kind reads.
    public static let commonBotKeys = [
        "name", "kind", "user", "channels", "concurrency", "drain_deadline", "reuse_uploads", "catch_up", "rate_budget",
        "sender_limit", "events", "outage_tolerance",
    ]

    /// Reads and checks `bots.yaml`.
    public static func load(contentsOf path: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(ConfigurationError)
        -> BotsConfiguration
    {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(code: .unreadable, message: "cannot read \(path)", file: path, line: 0, column: 0)
        }
        return try parse(text, file: path, environment: environment)
    }

    /// Reads and checks YAML text (`file` names it in errors).
    public static func parse(_ text: String, file: String = "bots.yaml", environment: [String: String] = [:]) throws(ConfigurationError)
        -> BotsConfiguration
    {
        let root = try ConfigParser(file: file, environment: environment).parse(text)
        try root.allowOnly(["server", "embedded", "metrics", "scale_out", "tracing", "webhook", "llm", "bots"])
        let server = try parseServer(root["server"], root: root)
        let embedded = try parseEmbedded(root["embedded"])
        let metrics = try parseMetrics(root["metrics"], embedded: embedded, server: server)
        let scaleOut = try parseScaleOut(root["scale_out"])
        let tracing = try parseTracing(root["tracing"])
        let webhook = try parseWebhook(root["webhook"], embedded: embedded, server: server, metrics: metrics)
        let llm = try parseModel(root["llm"])
        if scaleOut != nil, server.url == nil, let section = root["scale_out"] {
            throw section.error(
                .badValue,
                "scale_out needs server.url: every node must connect to one service, and each `bots run` without it starts an embedded server of its own; run `bots serve` (or use the hosted service) and set server.url")
        }
        guard let botsNode = root["bots"] else { throw root.error(.missingKey, "bots.yaml needs a bots: list") }
        var bots: [BotEntry] = []
        for node in try botsNode.sequence() {
            var entry = try parseBot(node)
            entry.events = try parseEvents(node["events"], bot: entry.name, webhook: webhook, scaledOut: scaleOut != nil)
            if bots.contains(where: { $0.name == entry.name }) {
                throw try node.required("name").error(.badValue, "two bots are named \"\(entry.name)\"; names must be unique")
            }
            // A bot skips its own user's messages, so two bots acting as one user in a channel
            // would each take the other's replies for their own and never see them; and a bot
            // follows every channel its user is a member of, so in different channels each
            // would handle the other's channels too.
            if let other = bots.first(where: { $0.user == entry.user }) {
                // At `user:`, or at the name when the user is the bot's name by default.
                let place: ConfigNode
                if let userNode = node["user"] { place = userNode } else { place = try node.required("name") }
                let why: String
                if let shared = entry.channels.first(where: other.channels.contains) {
                    why = " in \(shared); each would take the other's messages for its own and skip them"
                } else {
                    why = "; a bot follows every channel its user is a member of, so each would also handle the other's channels"
                }
                throw place.error(
                    .badValue, "bots \(other.name) and \(entry.name) both act as user \"\(entry.user)\"\(why); give one of them its own user:")
            }
            bots.append(entry)
        }
        return BotsConfiguration(
            server: server, embedded: embedded, bots: bots, metrics: metrics, scaleOut: scaleOut, tracing: tracing, webhook: webhook, llm: llm)
    }
}
