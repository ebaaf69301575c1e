import ChatModels
import Foundation
import GRDB

extension Renderer {
    /// A thread as `POST /threads` and `GET /threads/{id}` answer it (`ThreadStateResponse`):
    /// its channel, parent message, latest replies (oldest first), counts and participants.
    func thread(_ row: ThreadRow, shape: ThreadShape, viewer: String?, _ db: Database) throws -> JSONObject {
        let parent = row.parent
        let cid = parent.cid
        let users = try UsersTable.fetch(db, ids: row.participants.map(\.userId))
        let replies = shape.replyLimit == 0 ? [] : try MessagesTable.latestReplies(db, parentId: parent.id, limit: shape.replyLimit)
        let participants = row.participants.prefix(shape.participantLimit).map { participant -> RawJSON in
            .object([
                "channel_cid": .string(cid.rawValue), "thread_id": .string(parent.id), "user_id": .string(participant.userId),
                "user": .object(user(id: participant.userId, from: users)), "created_at": .string(RFC3339.string(from: participant.since)),
                "last_thread_message_at": .string(RFC3339.string(from: participant.lastAt)),
            ])
        }
        var object: JSONObject = [
            "channel_cid": .string(cid.rawValue), "parent_message_id": .string(parent.id),
            "parent_message": .object(try messages([parent], viewer: viewer, in: db)[0]),
            "created_by_user_id": .string(parent.userId), "created_by": .object(user(id: parent.userId, from: users)),
            "reply_count": .number(JSONNumber(row.replyCount)), "participant_count": .number(JSONNumber(row.participants.count)),
            "active_participant_count": .number(JSONNumber(row.participants.count)), "thread_participants": .array(Array(participants)),
            "latest_replies": .array(try messages(replies, viewer: viewer, in: db).map(RawJSON.object)),
            "last_message_at": .string(RFC3339.string(from: row.lastReplyAt)),
            "created_at": .string(RFC3339.string(from: parent.createdAt)), "updated_at": .string(RFC3339.string(from: row.lastReplyAt)),
        ]
        if let channel = try ChannelsTable.fetch(db, cid) {
            object["channel"] = .object(self.channel(channel, memberCount: try ChannelsTable.memberCount(db, cid), createdBy: nil))
        }
        return object
    }
}
