import ChatBotKit
import ChatModels
import Foundation
import PostgresNIO

/// Conversations in PostgreSQL, beside the leases: every node of a scaled-out bot reads and
/// writes the same ones, so a conversation goes on when its channel moves to another node.
extension PostgresChannelLeaseStore: ConversationStore {
    /// One row per conversation under way; a conversation outside a thread has thread `''`.
    static var conversationsTable: PostgresQuery {
        """
        CREATE TABLE IF NOT EXISTS chatbotkit_conversations (
            bot text NOT NULL, cid text NOT NULL, user_id text NOT NULL, thread text NOT NULL, name text NOT NULL, state text NOT NULL,
            started_by text NOT NULL, answered text[] NOT NULL, last_turn_at timestamptz NOT NULL, expires_at timestamptz NOT NULL,
            PRIMARY KEY (bot, cid, user_id, thread))
        """
    }

    /// The conversation saved under `key`, or nil.
    public func conversation(for key: ConversationKey) async throws -> SavedConversation? {
        try await perform("read the conversation \(key)") { client in
            let rows = try await client.query(
                """
                SELECT \(unescaped: Self.conversationColumns) FROM chatbotkit_conversations
                WHERE bot = \(key.bot) AND cid = \(key.channel.rawValue) AND user_id = \(key.user) AND thread = \(key.thread ?? "")
                """)
            return try await Self.conversations(in: rows).first
        }
    }

    /// The conversations of `bot` whose time for an answer runs out within `expiring`, soonest first.
    public func conversations(of bot: String, expiring: Range<Date>) async throws -> [SavedConversation] {
        try await perform("read the conversations of bot \(bot) that time out") { client in
            let rows = try await client.query(
                """
                SELECT \(unescaped: Self.conversationColumns) FROM chatbotkit_conversations
                WHERE bot = \(bot) AND expires_at >= \(expiring.lowerBound) AND expires_at < \(expiring.upperBound)
                ORDER BY expires_at, cid, user_id, thread
                """)
            return try await Self.conversations(in: rows)
        }
    }

    private static let conversationColumns = "bot, cid, user_id, thread, name, state, started_by, answered, last_turn_at, expires_at"

    /// The conversations of rows of ``conversationColumns``.
    private static func conversations(in rows: PostgresRowSequence) async throws -> [SavedConversation] {
        var found: [SavedConversation] = []
        for try await (bot, cid, user, thread, name, state, startedBy, answered, lastTurnAt, expiresAt) in rows.decode(
            (String, String, String, String, String, String, String, [String], Date, Date).self)
        {
            let key = ConversationKey(bot: bot, channel: try ChannelId(cid: cid), user: user, thread: thread.isEmpty ? nil : thread)
            found.append(
                SavedConversation(
                    key: key, name: name, state: try RawJSONDecoder().decode(RawJSON.self, from: Data(state.utf8)), startedBy: startedBy,
                    answered: answered, lastTurnAt: lastTurnAt, expiresAt: expiresAt))
        }
        return found
    }

    /// Saves `conversation`, replacing the one under its key, and forgets the bot's conversations
    /// that expired more than a week before it.
    public func save(_ conversation: SavedConversation) async throws {
        let key = conversation.key
        let state = String(decoding: try RawJSONEncoder().encodeData(conversation.state), as: UTF8.self)
        try await perform("save the conversation \(key)") { client in
            try await client.query(
                """
                INSERT INTO chatbotkit_conversations AS saved
                    (bot, cid, user_id, thread, name, state, started_by, answered, last_turn_at, expires_at)
                VALUES (\(key.bot), \(key.channel.rawValue), \(key.user), \(key.thread ?? ""), \(conversation.name), \(state),
                    \(conversation.startedBy), \(conversation.answered), \(conversation.lastTurnAt), \(conversation.expiresAt))
                ON CONFLICT (bot, cid, user_id, thread) DO UPDATE SET name = excluded.name, state = excluded.state,
                    started_by = excluded.started_by, answered = excluded.answered, last_turn_at = excluded.last_turn_at,
                    expires_at = excluded.expires_at
                """)
            // Those nobody answered in time are forgotten a week on, as the file store does.
            try await client.query(
                """
                DELETE FROM chatbotkit_conversations
                WHERE bot = \(key.bot) AND expires_at < \(conversation.lastTurnAt)::timestamptz - interval '7 days'
                """)
            return ()
        }
    }

    /// Forgets the conversation under `key`.
    public func removeConversation(for key: ConversationKey) async throws {
        try await perform("remove the conversation \(key)") { client in
            try await client.query(
                """
                DELETE FROM chatbotkit_conversations
                WHERE bot = \(key.bot) AND cid = \(key.channel.rawValue) AND user_id = \(key.user) AND thread = \(key.thread ?? "")
                """)
            return ()
        }
    }
}
