import ChatModels
import Foundation

/// A user's reminder of a message (`/messages/{id}/reminders`): due at ``remindAt``, or a
/// message saved for later when that is nil. When it comes due, the service sends the user
/// `notification.reminder_due` (and the app's webhook gets it).
public struct MessageReminder: Sendable, Hashable {
    /// The message it is about.
    public var messageId: String
    /// The channel of that message.
    public var cid: ChannelId
    /// Whose reminder it is.
    public var userId: String
    /// When it is due; nil for a message saved for later.
    public var remindAt: Date?
    /// When it was set.
    public var createdAt: Date?
    /// When it was last changed.
    public var updatedAt: Date?
    /// The message, as the answer or event carried it.
    public var message: Message?

    /// Whether it is due at `date` (a message saved for later never is).
    public func isDue(at date: Date = Date()) -> Bool { remindAt.map { $0 <= date } ?? false }

    /// Reads a reminder as answers and events carry it; `operation` names the call in errors.
    public init(json: RawJSON, operation: String) throws {
        guard let messageId = json["message_id"]?.stringValue, let userId = json["user_id"]?.stringValue,
            let cidText = json["channel_cid"]?.stringValue, let cid = try? ChannelId(cid: cidText)
        else {
            throw ChatClientError(
                code: .invalidResponse, message: "\(operation) answered a reminder without its message_id, user_id or channel_cid")
        }
        self.messageId = messageId
        self.userId = userId
        self.cid = cid
        remindAt = try Self.date(json["remind_at"], "remind_at", operation)
        createdAt = try Self.date(json["created_at"], "created_at", operation)
        updatedAt = try Self.date(json["updated_at"], "updated_at", operation)
        do {
            message = try json["message"].flatMap { $0.isNull ? nil : try Message(json: $0) }
        } catch {
            throw ChatClientError(code: .invalidResponse, message: "\(operation) answered a reminder whose message cannot be read: \(error)")
        }
    }

    private static func date(_ value: RawJSON?, _ field: String, _ operation: String) throws -> Date? {
        guard let value, !value.isNull else { return nil }
        guard let text = value.stringValue, let date = RFC3339.date(from: text) else {
            throw ChatClientError(code: .invalidResponse, message: "\(operation) answered a reminder whose \(field) is not an RFC 3339 date")
        }
        return date
    }
}
