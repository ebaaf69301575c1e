import ChatLocking
import Foundation

/// Keeps conversations in memory: they end with the process. What a ``Bot`` uses unless given
/// another store.
public final class MemoryConversationStore: ConversationStore {
    private let conversations = Locked(ConversationTable())

    /// An empty store.
    public init() {}

    /// The conversation saved under `key`, or nil.
    public func conversation(for key: ConversationKey) -> SavedConversation? {
        conversations.withLock { $0.entries[key] }
    }

    /// Saves `conversation`, forgetting those that timed out long ago.
    public func save(_ conversation: SavedConversation) {
        conversations.withLock { $0.save(conversation) }
    }

    /// Forgets the conversation under `key`.
    public func removeConversation(for key: ConversationKey) {
        conversations.withLock { _ = $0.entries.removeValue(forKey: key) }
    }

    /// The conversations of `bot` whose time for an answer runs out within `expiring`, soonest first.
    public func conversations(of bot: String, expiring: Range<Date>) -> [SavedConversation] {
        conversations.withLock { $0.conversations(of: bot, expiring: expiring) }
    }

    /// How many it holds.
    public var count: Int { conversations.withLock { $0.entries.count } }
}

/// Conversations by key, forgetting the ones nobody answered in time.
struct ConversationTable: Sendable {
    var entries: [ConversationKey: SavedConversation] = [:]

    /// How long after its timeout a conversation is forgotten. Not at once: a bot catching up
    /// after a stop, on the messages' own times, can still be given an answer sent in time.
    static let forgottenAfter: TimeInterval = 7 * 24 * 3600

    func conversations(of bot: String, expiring: Range<Date>) -> [SavedConversation] {
        entries.values.filter { $0.key.bot == bot && expiring.contains($0.expiresAt) }
            .sorted { ($0.expiresAt, $0.key.description) < ($1.expiresAt, $1.key.description) }
    }

    mutating func save(_ conversation: SavedConversation) {
        entries[conversation.key] = conversation
        let horizon = conversation.lastTurnAt.addingTimeInterval(-Self.forgottenAfter)
        if entries.count > 64, entries.values.contains(where: { $0.expiresAt < horizon }) {
            entries = entries.filter { $0.value.expiresAt >= horizon }
        }
    }
}
