import ChatModels
import Foundation

/// A conversation under way as a ``ConversationStore`` keeps it: which one, its state as JSON,
/// and what it has taken as answers.
public struct SavedConversation: Sendable, Equatable, Codable {
    /// Whose it is.
    public var key: ConversationKey
    /// The conversation type's ``Conversation/name``.
    public var name: String
    /// The state, as the type encodes it.
    public var state: RawJSON
    /// The message whose handler started it: handled again (a redelivery), it does not start it anew.
    public var startedBy: String
    /// The messages taken as answers lately: delivered again, they are not answers twice.
    public var answered: [String]
    /// The time of the message that started it or of the last answer.
    public var lastTurnAt: Date
    /// A message from after this time is no answer: the conversation has timed out.
    public var expiresAt: Date

    /// How many answered message ids are kept (redeliveries come soon after the first delivery).
    static let answeredKept = 16

    /// A saved conversation.
    public init(
        key: ConversationKey, name: String, state: RawJSON, startedBy: String, answered: [String] = [], lastTurnAt: Date, expiresAt: Date
    ) {
        self.key = key
        self.name = name
        self.state = state
        self.startedBy = startedBy
        self.answered = answered
        self.lastTurnAt = lastTurnAt
        self.expiresAt = expiresAt
    }

    private enum CodingKeys: String, CodingKey {
        case key, name, state, answered
        case startedBy = "started_by"
        case lastTurnAt = "last_turn_at"
        case expiresAt = "expires_at"
    }
}
