import ChatClient
import ChatLocking
import ChatModels
import Foundation
import Logging
import ServiceLifecycle

/// Runs one bot: its user's event connection (or its share of the app's webhook, see
/// ``EventSource``), its channels, and the handling of new, edited and deleted messages.
///
/// Messages, edits and deletions of one channel are handled in order; channels are handled
/// concurrently, at most `maximumConcurrentChannels` at a time. A message, each of its edits
/// and its deletion are handled once, even when they arrive twice (a reconnect, `/sync`, or
/// both `message.new` and `notification.message_new`). On a graceful shutdown it stops taking
/// messages, lets running handlers finish within `drainDeadline`, and returns.
public final class BotService: Service, Sendable {
    /// Limits and timing.
    public struct Configuration: Sendable {
        /// How many channels are handled at the same time.
        public var maximumConcurrentChannels: Int
        /// How long running handlers get to finish on shutdown before they are cancelled.
        public var drainDeadline: Duration
        /// The event connection's timing.
        public var connection: EventConnection.Configuration
        /// Where the bot keeps how far it has handled, to catch up on what it missed when it
        /// starts again; nil (the default) starts from the moment it connects.
        public var catchUp: CatchUp?
        /// The bot's other nodes and the leases that share its channels out among them; nil
        /// (the default) handles every channel here.
        public var scaleOut: ScaleOut?
        /// Where the bot's events come from: its own WebSocket connection (the default), or the
        /// app's webhook requests through an intake.
        public var events: EventSource
        /// Where the bot's custom commands are answered (ChatBotKitWebhooks'
        /// `CustomCommandIntake`, which the app's `custom_action_handler_url` reaches); nil when
        /// it answers none. At start the bot registers its commands there, creates them on the
        /// app and offers them in the types of its channels.
        public var commands: (any CustomCommandRegistry)?

        /// The defaults: 8 channels at once, 10 s to drain, no catching up, one node, events
        /// over a WebSocket, no custom commands.
        public init(
            maximumConcurrentChannels: Int = 8, drainDeadline: Duration = .seconds(10),
            connection: EventConnection.Configuration = EventConnection.Configuration(), catchUp: CatchUp? = nil,
            scaleOut: ScaleOut? = nil, events: EventSource = .webSocket, commands: (any CustomCommandRegistry)? = nil
        ) {
            self.commands = commands
            self.maximumConcurrentChannels = maximumConcurrentChannels
            self.drainDeadline = drainDeadline
            self.connection = connection
            self.catchUp = catchUp
            self.scaleOut = scaleOut
            self.events = events
        }
    }

    /// The bot.
    public let bot: Bot
    /// Its client (acting as the bot's user).
    public let client: ChatClient
    /// The channels it joins and watches (created, with the bot as a member, when missing); it
    /// also watches every other channel it is a member of. ``follow(_:)`` adds to them.
    public var channels: [ChannelId] { configuredChannels.withLock { $0 } }
    /// The configuration.
    public let configuration: Configuration
    /// The bot's event connection (not opened when its events come by webhook).
    public let connection: EventConnection
    /// The bot's logger (its metadata names the bot).
    public let logger: Logger
    /// The channels it was given (each once), and those it followed since.
    let configuredChannels: Locked<[ChannelId]>
    /// The channels it was given more than once, with how many times (joined and watched once).
    let repeatedChannels: [(cid: ChannelId, times: Int)]
    /// The channels the service refused to let it join when its events come by webhook (over
    /// its WebSocket, its connection keeps them).
    let refusedByWebhookStart = Locked<[ChannelFailure]>([])
    // The parts it composes, each with one job; the service itself keeps only how they are
    // wired, whether it is ready, and its reconfigurations.
    /// Takes the events in and runs the handlers.
    let pipeline: DeliveryPipeline
    /// Keeps the checkpoint (only with ``Configuration/catchUp``).
    let checkpointer: Checkpointer?
    /// Keeps this node's share of the channels (only with ``Configuration/scaleOut``).
    let leaseKeeper: LeaseKeeper?
    /// Schedules, conversation timeouts, and the reminders missed while stopped.
    let timedWork: TimedWork
    /// The channels the bot follows when its events come by webhook (unused on the WebSocket,
    /// whose connection knows what it watches).
    let webhookChannels = WebhookChannels()
    /// Whether the bot got ready, for whoever waits until it is.
    let readiness = BotReadiness()
    /// One reconfiguration at a time.
    let reconfiguring = AsyncSlots(limit: 1)

    /// A service for `bot`, talking through `client`.
    public init(bot: Bot, client: ChatClient, channels: [ChannelId], configuration: Configuration = Configuration(), logger: Logger? = nil) {
        self.bot = bot
        self.client = client
        var times: [ChannelId: Int] = [:]
        var unique: [ChannelId] = []
        for cid in channels {
            times[cid, default: 0] += 1
            if times[cid] == 1 { unique.append(cid) }
        }
        configuredChannels = Locked(unique)
        repeatedChannels = unique.compactMap { cid in
            let count = times[cid, default: 0]
            return count > 1 ? (cid: cid, times: count) : nil
        }
        self.configuration = configuration
        // A bot follows its membership, as its users expect: a channel it is added to from an
        // app is handled like its configured ones, across restarts and reconnects.
        var connectionConfiguration = configuration.connection
        connectionConfiguration.watchesMemberChannels = true
        // Joined in the same paged calls that watch them, on the first connection.
        connectionConfiguration.joinsWatchedChannels = true
        let connection = EventConnection(client: client, user: bot.user, configuration: connectionConfiguration)
        self.connection = connection
        var botLogger = logger ?? Logger(label: "chatbotkit.bot")
        botLogger[metadataKey: "bot"] = .string(bot.name)
        if let scaleOut = configuration.scaleOut { botLogger[metadataKey: "node"] = .string(scaleOut.node) }
        self.logger = botLogger

        let metrics = BotMetrics(bot: bot.name, factory: client.metricsFactory)
        let checkpointer = configuration.catchUp.map { Checkpointer($0, bot: bot.name, logger: botLogger) }
        let leaseKeeper = configuration.scaleOut.map { scaleOut in
            LeaseKeeper(
                scaleOut, bot: bot, connection: connection, maximumAge: configuration.catchUp?.maximumAge ?? .seconds(86_400), metrics: metrics,
                logger: botLogger)
        }
        self.checkpointer = checkpointer
        self.leaseKeeper = leaseKeeper
        // Where timed work is queued and a deleted user's messages forgotten: the channels this node handles.
        let handledChannels: @Sendable () -> [ChannelId] = { [webhookChannels, isWebhook = configuration.events.isWebhook] in
            if let leaseKeeper { return leaseKeeper.leasedChannels.sorted { $0.rawValue < $1.rawValue } }
            if isWebhook { return webhookChannels.sorted }
            return connection.watchedChannels
        }
        var observers: [any DeliveryObserver] = []
        if let checkpointer { observers.append(checkpointer) }
        if let leaseKeeper { observers.append(leaseKeeper) }
        pipeline = DeliveryPipeline(
            bot: bot, client: client, logger: botLogger, metrics: metrics, maximumConcurrentChannels: configuration.maximumConcurrentChannels,
            drainDeadline: configuration.drainDeadline, observers: observers, channels: handledChannels,
            deadLetters: configuration.catchUp.map { DeadLetterFile(file: $0.deadLetterFile) })
        timedWork = TimedWork(pipeline: pipeline, channels: handledChannels)
    }

    /// A service for `bot` on `server`, with a client of its own acting as the bot's user,
    /// uploading through `cdnStorage` (the chat API's CDN by default), keeping its calls
    /// within `rateBudget`, if any, and waiting out outages of the service up to `outageTolerance`.
    public convenience init(
        bot: Bot, server: URL, apiKey: String, apiSecret: String, channels: [ChannelId], configuration: Configuration = Configuration(),
        cdnStorage: (any CDNStorage)? = nil, rateBudget: RateBudget? = nil, outageTolerance: Duration = .seconds(600), logger: Logger
    ) {
        let client = ChatClient(
            configuration: ChatClientConfiguration(
                apiKey: apiKey, baseURL: server, credentials: .apiSecret(apiSecret), userId: bot.user.id, rateBudget: rateBudget,
                outageTolerance: outageTolerance),
            cdnStorage: cdnStorage, logger: logger)
        self.init(bot: bot, client: client, channels: channels, configuration: configuration, logger: logger)
    }

    /// Handlers running right now.
    public var runningHandlers: Int { pipeline.runningHandlers }

    /// Whether a delivery is queued or being handled (what `bots simulate` waits out).
    public var hasPendingWork: Bool { pipeline.hasPendingWork }

    /// Waits until the bot is connected and watching its channels; throws the error that
    /// stopped it if it could not start or stopped before it was ready.
    public func waitUntilReady() async throws {
        try await readiness.wait()
    }

    /// Whether the bot got connected and watched its channels (it may have stopped since).
    var becameReady: Bool { readiness.isReady }

    /// Connects, watches the channels, and handles messages until shut down.
    public func run() async throws {
        defer { configuration.commands?.unregister(bot: bot.name) }
        do {
            if case .webhook(let feed) = configuration.events {
                try await runOverWebhook(feed)
            } else {
                try await runOverWebSocket()
            }
            readiness.settle(.failure(BotError(code: .startFailed, message: "bot \(bot.name) stopped before it was ready")))
        } catch {
            let botError = error as? BotError ?? BotError(code: .startFailed, message: "bot \(bot.name) stopped: \(error)", underlying: error)
            readiness.settle(.failure(botError))
            throw error
        }
    }
}
