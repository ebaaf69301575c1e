import Foundation

/// Where a bot keeps its conversations under way between turns.
///
/// A channel's messages are handled one after another, so a store is never asked about one key
/// from two places at once; it is asked about different keys concurrently.
public protocol ConversationStore: Sendable {
    /// The conversation saved under `key`, or nil.
    func conversation(for key: ConversationKey) async throws -> SavedConversation?
    /// Saves `conversation` under its key, replacing the one there.
    func save(_ conversation: SavedConversation) async throws
    /// Forgets the conversation under `key`, if there is one.
    func removeConversation(for key: ConversationKey) async throws
    /// The conversations of `bot` whose time for an answer runs out within `expiring` (their
    /// ``SavedConversation/expiresAt``), soonest first: those the bot tells that it stopped waiting.
    func conversations(of bot: String, expiring: Range<Date>) async throws -> [SavedConversation]
}
