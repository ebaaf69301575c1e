import ChatModels
import Foundation
import GRDB

extension AppRoutes {
    /// What a ban's `delete_messages` asks for: nil to keep the user's messages, otherwise
    /// whether they go for good (`"hard"`) or stay as deleted messages (`"soft"`).
    static func messageDeletion(_ value: RawJSON?, operation: String) throws -> Bool? {
        guard let value, value != .null else { return nil }
        switch value.stringValue {
        case "soft": return false
        case "hard": return true
        case "pruning":
            throw APIError.input(operation, "delete_messages \"pruning\" is not supported by the dev server; use \"soft\" or \"hard\"")
        default: throw APIError.input(operation, "delete_messages must be \"soft\" or \"hard\"")
        }
    }

    /// Deletes `userId`'s messages in each of `cids` (all the channels it posted in when nil) and
    /// announces it in each channel that had any, with one `user.messages.deleted` (`user`,
    /// `hard_delete`) logged for `/sync` and posted to the webhook. As on the service, no
    /// `message.deleted` is sent for each message: clients and bots drop the user's messages
    /// posted up to the event's `created_at`.
    static func deleteMessages(
        of userId: String, rendered user: JSONObject, in cids: [ChannelId]?, hard: Bool, at now: Date, _ db: Database
    ) throws -> [PendingEvent] {
        try (cids ?? MessagesTable.channelIds(withMessagesOf: userId, db)).compactMap { cid in
            guard try MessagesTable.deleteMessages(db, of: userId, in: cid, hard: hard, at: now) > 0 else { return nil }
            var event = DevServerState.event("user.messages.deleted", cid, at: now)
            event["user"] = .object(user)
            event["hard_delete"] = .bool(hard)
            try DevServerState.log(db, event, cid: cid, at: now)
            return PendingEvent(cid: cid, event: event)
        }
    }
}
