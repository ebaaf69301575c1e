import ChatModels
import Foundation

/// A thread: a message with replies (`POST /threads`, `GET /threads/{id}`).
public struct ChatThread: Sendable {
    /// The channel it is in.
    public var cid: ChannelId
    /// The message that started it.
    public var parentMessage: Message
    /// How many replies it has (deleted ones left out).
    public var replyCount: Int
    /// The latest replies asked for, oldest first.
    public var latestReplies: [Message]
    /// Who wrote the parent or a reply, in the order they first did.
    public var participantIds: [String]
    /// When its latest reply was sent.
    public var lastMessageAt: Date?

    init(json: RawJSON, operation: String) throws {
        do {
            guard let cidText = json["channel_cid"]?.stringValue, let parent = json["parent_message"] else {
                throw ChatClientError(code: .invalidResponse, message: "\(operation) answered a thread without its channel_cid or parent_message")
            }
            cid = try ChannelId(cid: cidText)
            parentMessage = try Message(json: parent)
            latestReplies = try (json["latest_replies"]?.arrayValue ?? []).map { try Message(json: $0) }
        } catch let error as ChatClientError {
            throw error
        } catch {
            throw ChatClientError(code: .invalidResponse, message: "\(operation) answered a thread that cannot be read: \(error)")
        }
        replyCount = json["reply_count"]?.intValue ?? 0
        participantIds = (json["thread_participants"]?.arrayValue ?? []).compactMap { $0["user_id"]?.stringValue }
        lastMessageAt = json["last_message_at"]?.stringValue.flatMap(RFC3339.date(from:))
    }
}
