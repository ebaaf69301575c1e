import ChatModels
import Foundation
import GRDB

extension AppRoutes {
    /// What a deletion field asks for (a ban's `delete_messages`, a bulk deletion's `user` and
    /// `messages`): nil when absent, otherwise whether it is for good (`"hard"`) or keeps
    /// deleted copies (`"soft"`); `"pruning"` and anything else are refused.
    static func deletionMode(_ value: RawJSON?, field: String, operation: String) throws -> Bool? {
        guard let value, !value.isNull else { return nil }
        switch value.stringValue {
        case "soft": return false
        case "hard": return true
        case "pruning":
            throw APIError.input(operation, "\(field) \"pruning\" is not supported by the dev server; use \"soft\" or \"hard\"")
        default: throw APIError.input(operation, "\(field) must be \"soft\" or \"hard\"")
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
