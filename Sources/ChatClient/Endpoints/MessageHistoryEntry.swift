import ChatModels
import Foundation

/// A version of a message that an edit replaced (`POST /messages/history`).
public struct MessageHistoryEntry: Sendable {
    /// The message's id.
    public var messageId: String
    /// Its text then.
    public var text: String
    /// Its attachments then.
    public var attachments: [AnyChatMessageAttachment]
    /// When this version was made (the message's creation for the first).
    public var madeAt: Date?
    /// Who made it: the author for the first version, the editor for the others.
    public var madeBy: String?
    /// Its custom fields then, flat on the wire.
    public var extraData: [String: RawJSON]

    static let knownKeys: Set<String> = ["message_id", "text", "attachments", "message_updated_at", "message_updated_by_id", "is_deleted"]

    init(json: RawJSON) {
        messageId = json["message_id"]?.stringValue ?? ""
        text = json["text"]?.stringValue ?? ""
        let messageId = self.messageId
        attachments = (json["attachments"]?.arrayValue ?? []).enumerated().compactMap { index, attachment in
            attachment.objectValue.map { AnyChatMessageAttachment(id: AttachmentId(cid: nil, messageId: messageId, index: index), json: $0) }
        }
        madeAt = json["message_updated_at"]?.stringValue.flatMap(RFC3339.date(from:))
        madeBy = json["message_updated_by_id"]?.stringValue
        let custom = (json.objectValue?.members ?? []).filter { !Self.knownKeys.contains($0.key) }
        extraData = Dictionary(custom, uniquingKeysWith: { first, _ in first })
    }
}
