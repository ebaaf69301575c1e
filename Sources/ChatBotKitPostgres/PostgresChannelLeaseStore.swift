import ChatBotKit
import ChatLocking
import ChatModels
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

/// Channel leases in PostgreSQL, for a bot run on several nodes (``BotService/ScaleOut``).
///
/// Tables made on first use: `chatbotkit_nodes` (which nodes run which bot, as which process,
/// until when), `chatbotkit_channel_leases` (a channel's holder, until when, and how far it was
/// handled), and `chatbotkit_conversations` (the bots' conversations under way: it is a
/// ``ConversationStore`` too, so a conversation goes on whichever node its channel moves to). Every lease is taken and renewed by one statement that checks its holder and
/// expiry against the database's clock, so two nodes never both hold a channel.
///
/// It is a service: run it (in the `ServiceGroup`, before the bots, so that it stops after
/// them and they can give their leases up) for as long as the bots use it.
public final class PostgresChannelLeaseStore: ChannelLeaseStore, Service {
    /// The connection pool.
    public let client: PostgresClient
    /// How long one call may take before it fails with `.timedOut`.
    public let timeout: Duration
    private let probeConfiguration: PostgresConnection.Configuration?
    private let logger: Logger
    private let schemaIsReady = Locked(false)

    /// A store on the database `connection` names; calls that take longer than `timeout` fail.
    public init(connection: PostgresConnectionString, timeout: Duration = .seconds(5), logger: Logger = Logger(label: "chatbotkit.leases")) {
        var configuration = connection.configuration
        configuration.options.maximumConnections = 4
        // The pool says every failed connection attempt (several a second) at info; the bots
        // report a store they cannot reach themselves, once.
        var poolLogger = logger
        if poolLogger.logLevel < .warning { poolLogger.logLevel = .warning }
        client = PostgresClient(configuration: configuration, backgroundLogger: poolLogger)
        self.timeout = timeout
        self.logger = logger
        probeConfiguration = connection.probeConfiguration
    }

    /// Runs the connection pool until a graceful shutdown.
    public func run() async {
        await client.run()
    }

    /// Records the node's announcement in `chatbotkit_nodes` and returns the live nodes, by the database's clock.
    public func announce(node: String, bot: String, instance: String, for duration: Duration) async throws -> [String] {
        try await perform("announce node \(node)") { [logger] client in
            let milliseconds = Self.milliseconds(duration)
            // One transaction, so that `now()` is one time: a slow round trip between the
            // statements cannot leave a fresh announcement out of the list as run out.
            return try await client.withTransaction(logger: logger) { connection in
                // A name another instance announced, and that has not run out, stays that instance's.
                try await connection.query(
                    """
                    INSERT INTO chatbotkit_nodes AS announced (bot, node, instance, expires_at)
                    VALUES (\(bot), \(node), \(instance), now() + \(milliseconds) * interval '1 millisecond')
                    ON CONFLICT (bot, node) DO UPDATE SET expires_at = excluded.expires_at, instance = excluded.instance
                    WHERE announced.instance = excluded.instance OR announced.expires_at <= now()
                    """, logger: logger)
                // Nodes gone for a day are forgotten.
                try await connection.query(
                    "DELETE FROM chatbotkit_nodes WHERE bot = \(bot) AND expires_at < now() - interval '1 day'", logger: logger)
                // The name is listed only if the announcement took.
                return try await Self.liveNodes(bot: bot, connection, logger: logger)
                    .filter { $0.node != node || $0.instance == instance }.map(\.node)
            }
        }
    }

    /// The nodes running `bot` now, without announcing any (what `bots doctor` reports).
    public func runningNodes(bot: String) async throws -> [String] {
        try await perform("read the nodes") { [logger] client in
            try await client.withConnection { try await Self.liveNodes(bot: bot, $0, logger: logger).map(\.node) }
        }
    }

    /// The nodes of `bot` whose announcement has not run out, with the instance that made it.
    private static func liveNodes(bot: String, _ connection: PostgresConnection, logger: Logger) async throws
        -> [(node: String, instance: String)]
    {
        var nodes: [(node: String, instance: String)] = []
        for try await (name, instance) in try await connection.query(
            "SELECT node, instance FROM chatbotkit_nodes WHERE bot = \(bot) AND expires_at > now() ORDER BY node", logger: logger
        ).decode((String, String).self) {
            nodes.append((name, instance))
        }
        return nodes
    }

    /// Reads `bot`'s rows of `chatbotkit_channel_leases`, with how long ago each ran out by the database's clock.
    public func leases(bot: String) async throws -> [ChannelLease] {
        try await perform("read the leases") { client in
            var leases: [ChannelLease] = []
            let rows = try await client.query(
                """
                SELECT cid, owner, (extract(epoch FROM now() - expires_at) * 1000)::bigint
                FROM chatbotkit_channel_leases WHERE bot = \(bot)
                """)
            for try await (cid, owner, expiredMilliseconds) in rows.decode((String, String?, Int64).self) {
                guard let channel = try? ChannelId(cid: cid) else { continue }
                leases.append(ChannelLease(cid: channel, owner: owner, expiredFor: .milliseconds(expiredMilliseconds)))
            }
            return leases
        }
    }

    /// Takes or keeps the lease in one upsert, so two nodes racing for a channel cannot both win.
    public func acquire(_ cid: ChannelId, bot: String, node: String, for duration: Duration, expiredFor: Duration) async throws
        -> ChannelHandOff?
    {
        try await perform("take the lease of \(cid)") { client in
            let rows = try await client.query(
                """
                INSERT INTO chatbotkit_channel_leases AS lease (bot, cid, owner, expires_at)
                VALUES (\(bot), \(cid.rawValue), \(node), now() + \(Self.milliseconds(duration)) * interval '1 millisecond')
                ON CONFLICT (bot, cid) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
                WHERE lease.owner = excluded.owner OR lease.expires_at <= now() - \(Self.milliseconds(expiredFor)) * interval '1 millisecond'
                RETURNING handled_through, recently_handled
                """)
            for try await (handledThrough, recentlyHandled) in rows.decode((Date?, [String]).self) {
                return ChannelHandOff(handledThrough: handledThrough, recentlyHandled: recentlyHandled)
            }
            return nil
        }
    }

    /// Extends the leases `node` still holds and records their progress, in one transaction.
    public func renew(_ progress: [ChannelId: ChannelHandOff], bot: String, node: String, for duration: Duration) async throws
        -> Set<ChannelId>
    {
        try await perform("renew \(progress.count) leases") { [logger] client in
            try await Self.record(progress, bot: bot, node: node, keepingFor: duration, client, logger: logger)
        }
    }

    /// Records the progress of `node`'s leases and lets them run out at once, in one transaction.
    public func release(_ progress: [ChannelId: ChannelHandOff], bot: String, node: String) async throws {
        try await perform("release \(progress.count) leases") { [logger] client in
            _ = try await Self.record(progress, bot: bot, node: node, keepingFor: nil, client, logger: logger)
        }
    }

    /// Records how far each of `node`'s channels was handled, in one transaction, and keeps its
    /// lease for `duration` more, or gives it up (nil: no holder, run out now). A hand-off
    /// without progress (nothing handled yet) keeps the last holder's; one of a channel without
    /// events that lists the bot's own deliveries (scheduled runs) replaces its list, which it
    /// carries on. Returns the channels whose lease was `node`'s.
    private static func record(
        _ progress: [ChannelId: ChannelHandOff], bot: String, node: String, keepingFor duration: Duration?, _ client: PostgresClient,
        logger: Logger
    ) async throws -> Set<ChannelId> {
        let releases = duration == nil
        let milliseconds = duration.map(Self.milliseconds) ?? 0
        return try await client.withTransaction(logger: logger) { connection in
            var kept: Set<ChannelId> = []
            for (cid, handOff) in progress {
                let rows = try await connection.query(
                    """
                    UPDATE chatbotkit_channel_leases SET
                        owner = CASE WHEN \(releases) THEN NULL ELSE owner END,
                        expires_at = now() + \(milliseconds) * interval '1 millisecond',
                        recently_handled = CASE WHEN \(handOff.handledThrough)::timestamptz IS NULL AND cardinality(\(handOff.recentlyHandled)::text[]) = 0
                            THEN recently_handled ELSE \(handOff.recentlyHandled)::text[] END,
                        handled_through = coalesce(\(handOff.handledThrough)::timestamptz, handled_through)
                    WHERE bot = \(bot) AND cid = \(cid.rawValue) AND owner = \(node)
                    RETURNING cid
                    """, logger: logger)
                for try await _ in rows.decode(String.self) { kept.insert(cid) }
            }
            return kept
        }
    }

    /// Removes `node`'s row from `chatbotkit_nodes` if `instance` still holds the name.
    public func leave(node: String, bot: String, instance: String) async throws {
        try await perform("remove node \(node)") { client in
            try await client.query("DELETE FROM chatbotkit_nodes WHERE bot = \(bot) AND node = \(node) AND instance = \(instance)")
            return ()
        }
    }

    /// Makes the tables when missing, once per store; an advisory lock keeps two nodes that
    /// start together from making them at the same time.
    private func prepareSchema() async throws {
        guard !schemaIsReady.withLock({ $0 }) else { return }
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.schemaLockKey))", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS chatbotkit_nodes (
                    bot text NOT NULL, node text NOT NULL, instance text NOT NULL, expires_at timestamptz NOT NULL, PRIMARY KEY (bot, node))
                """, logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS chatbotkit_channel_leases (
                    bot text NOT NULL, cid text NOT NULL, owner text, expires_at timestamptz NOT NULL,
                    handled_through timestamptz, recently_handled text[] NOT NULL DEFAULT '{}', PRIMARY KEY (bot, cid))
                """, logger: logger)
            try await connection.query(Self.conversationsTable, logger: logger)
        }
        schemaIsReady.withLock { $0 = true }
    }

    /// Runs `operation` once the tables exist, within ``timeout``; a failure says what was being
    /// done. At the timeout the call fails (once it has found out why connections fail, unless
    /// the operation ends meanwhile) and the operation is cancelled behind it: the pool can take
    /// a while to give up a connection attempt (see `withDeadline`).
    func perform<Result: Sendable>(_ what: String, _ operation: @escaping @Sendable (PostgresClient) async throws -> Result)
        async throws(LeaseStoreError) -> Result
    {
        let client = self.client
        do {
            return try await withDeadline(timeout) {
                try await self.prepareSchema()
                return try await operation(client)
            } onTimeout: { [timeout] in
                // The pool keeps retrying a connection the server refuses (a wrong password, a
                // missing database), so say why a connection of its own fails.
                let reason = await self.whyConnectionsFail().map { ": \($0)" } ?? ""
                throw LeaseStoreError(
                    code: .timedOut, message: "the lease store did not answer within \(DurationText.format(timeout)) (\(what))\(reason)")
            }
        } catch let error as LeaseStoreError {
            throw error
        } catch let error as PSQLError {
            throw LeaseStoreError(code: .queryFailed, message: "the lease store could not \(what): \(Self.describe(error))")
        } catch {
            throw LeaseStoreError(code: .queryFailed, message: "the lease store could not \(what): \(error)")
        }
    }

    /// Why a connection of its own to the database fails, within two seconds; nil when it
    /// succeeds or does not fail in time.
    private func whyConnectionsFail() async -> String? {
        guard let probeConfiguration else { return nil }
        let logger = self.logger
        return await withTaskGroup(of: String?.self) { group in
            group.addTask {
                do {
                    let connection = try await PostgresConnection.connect(configuration: probeConfiguration, id: 0, logger: logger)
                    try? await connection.close()
                    return nil
                } catch let error as PSQLError {
                    return "connecting fails: \(Self.describe(error))"
                } catch {
                    return "connecting fails: \(error)"
                }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(2))
                return nil
            }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
    }

    private static func describe(_ error: PSQLError) -> String {
        if let message = error.serverInfo?[.message] { return message }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    /// The advisory lock taken while the tables are made ("CBKLEASE").
    private static let schemaLockKey: Int64 = 0x4342_4B4C_4541_5345
}
