import ChatModels
import Foundation
import GRDB
import Hummingbird

extension InteractionRoutes {
    /// `POST /channels/{type}/{id}/read`: marks the channel read for a user, up to
    /// `message_id` when given (a message of the channel), otherwise all of it.
    func markRead(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "MarkRead"
        let principal = try await state.authenticate(request)
        let cid = try state.channelId(context, operation: operation)
        let body = try await state.jsonBody(request, operation: operation)
        let userId = try state.actingUser(principal, body, operation: operation)
        let now = state.clock.now()
        let (event, events) = try await state.store.write { db -> (JSONObject, [PendingEvent]) in
            let channel = try DevServerState.requireChannel(db, cid, operation: operation)
            try DevServerState.requireAccess(db, cid, principal, operation: operation)
            let (lastId, readUpTo): (String?, Date)
            if let messageId = body["message_id"]?.stringValue {
                let message = try Self.requireMessage(messageId, in: cid, db, operation: operation)
                (lastId, readUpTo) = (message.id, message.createdAt)
            } else {
                (lastId, readUpTo) = (try MessagesTable.latest(db, cid, limit: 1).last?.id, now)
            }
            try MessagesTable.markRead(db, cid, userId, messageId: lastId, at: readUpTo)
            var event = DevServerState.event("message.read", cid, at: now)
            event["user"] = .object(["id": .string(userId)])
            event["last_read_message_id"] = lastId.map(RawJSON.string) ?? .null
            try DevServerState.log(db, event, cid: cid, at: now)
            var notification = event
            notification["type"] = "notification.mark_read"
            try Self.addUnread(to: &notification, of: userId, in: channel, db)
            return (event, [PendingEvent(cid: cid, event: event), PendingEvent(cid: cid, event: notification, onlyUsers: [userId])])
        }
        await state.publish(events)
        return JSONReply(["event": .object(event)], status: .created)
    }

    /// `POST /channels/{type}/{id}/unread` with `message_id`: marks that message and every later
    /// one unread for a member, who hears `notification.mark_unread` with the new counts.
    func markUnread(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "MarkUnread"
        let principal = try await state.authenticate(request)
        let cid = try state.channelId(context, operation: operation)
        let body = try await state.jsonBody(request, operation: operation)
        let userId = try state.actingUser(principal, body, operation: operation)
        guard let messageId = body["message_id"]?.stringValue, !messageId.isEmpty else {
            throw APIError.input(operation, "message_id is required: the first message to mark unread")
        }
        let now = state.clock.now()
        let notification = try await state.store.write { db -> PendingEvent in
            let channel = try DevServerState.requireChannel(db, cid, operation: operation)
            try DevServerState.requireAccess(db, cid, principal, operation: operation)
            guard try ChannelsTable.member(db, cid, userId) != nil else {
                throw APIError.input(operation, "user \(userId) is not a member of channel \(cid.rawValue), so has nothing to mark unread")
            }
            let first = try Self.requireMessage(messageId, in: cid, db, operation: operation)
            let previous = try String.fetchOne(
                db,
                cached: """
                    SELECT id FROM messages WHERE cid = ? AND parent_id IS NULL AND deleted_at IS NULL
                    AND seq < (SELECT seq FROM messages WHERE id = ?) ORDER BY seq DESC LIMIT 1
                    """,
                arguments: [cid.rawValue, first.id])
            // Read up to the moment before it (clock ticks are microseconds, and no two are equal).
            try MessagesTable.markRead(db, cid, userId, messageId: previous, at: first.createdAt.addingTimeInterval(-0.000_001))
            var event = DevServerState.event("notification.mark_unread", cid, at: now)
            event["user"] = .object(["id": .string(userId)])
            event["first_unread_message_id"] = .string(first.id)
            event["last_read_message_id"] = previous.map(RawJSON.string) ?? .null
            try Self.addUnread(to: &event, of: userId, in: channel, db)
            return PendingEvent(cid: cid, event: event, onlyUsers: [userId])
        }
        await state.publish([notification])
        return JSONReply([:], status: .created)
    }

    /// `POST /channels/read` with `user` (or `user_id`): marks every channel of the user read.
    func markAllRead(_ request: Request) async throws -> JSONReply {
        let operation = "MarkChannelsRead"
        let principal = try await state.authenticate(request)
        let body = try await state.jsonBody(request, operation: operation)
        let userId = try state.actingUser(principal, body, operation: operation)
        let now = state.clock.now()
        let notifications = try await state.store.write { db -> [PendingEvent] in
            guard try UsersTable.fetch(db, userId) != nil else { throw APIError.notFound(operation, "user \(userId) does not exist") }
            var notifications: [PendingEvent] = []
            for (cid, read) in try UnreadCounts.totals(db, of: userId).channels where read.unreadMessages > 0 {
                try MessagesTable.markRead(db, cid, userId, messageId: try MessagesTable.latest(db, cid, limit: 1).last?.id, at: now)
                var event = DevServerState.event("notification.mark_read", cid, at: now)
                event["user"] = .object(["id": .string(userId)])
                notifications.append(PendingEvent(cid: cid, event: event, onlyUsers: [userId]))
            }
            return notifications
        }
        await state.publish(notifications)
        return JSONReply([:], status: .created)
    }

    /// `GET /unread?user_id=`: a user's unread messages, in all and per channel (a user token
    /// reads its own; a server token names the user).
    func unreadCounts(_ request: Request) async throws -> JSONReply {
        let operation = "UnreadCounts"
        let principal = try await state.authenticate(request)
        let asked = request.query("user_id")
        if let own = principal.userId, let asked, asked != own {
            throw APIError.forbidden(operation, "user \(own) may only read their own unread counts")
        }
        guard let userId = principal.userId ?? asked, !userId.isEmpty else {
            throw APIError.input(operation, "user_id is required when using server side auth")
        }
        let counts = try await state.store.read { db in try Self.unreadCounts(of: userId, db, operation: operation) }
        return JSONReply(counts)
    }

    /// `POST /unread_batch` with `user_ids` (server tokens only, 1 to 100 users): each one's
    /// unread counts, by user id.
    func unreadCountsBatch(_ request: Request) async throws -> JSONReply {
        let operation = "UnreadCountsBatch"
        try await state.requireServer(request, operation, "unread counts of several users can only be read")
        let body = try await state.jsonBody(request, operation: operation)
        let ids = body["user_ids"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard !ids.isEmpty, ids.count <= 100, ids.count == body["user_ids"]?.arrayValue?.count else {
            throw APIError.input(operation, "user_ids must be an array of 1 to 100 user ids")
        }
        let counts = try await state.store.read { db -> JSONObject in
            let missing = try ids.filter { try UsersTable.fetch(db, $0) == nil }
            guard missing.isEmpty else {
                throw APIError.input(operation, "user_ids names users that do not exist: \(missing.joined(separator: ", "))")
            }
            return JSONObject(try ids.map { ($0, RawJSON.object(try Self.unreadCounts(of: $0, db, operation: operation))) })
        }
        return JSONReply(["counts_by_user": .object(counts)])
    }

    /// The unread counts of `userId`, as `GET /unread` answers them.
    static func unreadCounts(of userId: String, _ db: Database, operation: String) throws -> JSONObject {
        guard try UsersTable.fetch(db, userId) != nil else { throw APIError.notFound(operation, "user \(userId) does not exist") }
        let totals = try UnreadCounts.totals(db, of: userId)
        var byType: [String: (channels: Int, unread: Int)] = [:]
        for (cid, read) in totals.channels where read.unreadMessages > 0 {
            byType[cid.type.rawValue, default: (0, 0)].channels += 1
            byType[cid.type.rawValue, default: (0, 0)].unread += read.unreadMessages
        }
        return [
            "total_unread_count": .number(JSONNumber(totals.totalUnreadCount)),
            "total_unread_threads_count": 0,
            "channels": .array(
                totals.channels.map { cid, read in
                    .object([
                        "channel_id": .string(cid.rawValue), "unread_count": .number(JSONNumber(read.unreadMessages)),
                        "last_read": .string(RFC3339.string(from: read.lastRead)),
                    ])
                }),
            "channel_type": .array(
                byType.sorted { $0.key < $1.key }.map { type, counts in
                    .object([
                        "channel_type": .string(type), "channel_count": .number(JSONNumber(counts.channels)),
                        "unread_count": .number(JSONNumber(counts.unread)),
                    ])
                }),
            "threads": [],
        ]
    }

    /// A message of channel `cid`: one that does not exist is a 404, one of another channel a 400.
    static func requireMessage(_ id: String, in cid: ChannelId, _ db: Database, operation: String) throws -> StoredMessage {
        let message = try DevServerState.requireMessage(db, id, operation: operation)
        guard message.cid == cid else { throw APIError.input(operation, "message \(id) is not in channel \(cid.rawValue)") }
        return message
    }

    /// Adds the user's unread counts in `channel` and over all channels to a read notification.
    static func addUnread(to event: inout JSONObject, of userId: String, in channel: StoredChannel, _ db: Database) throws {
        let totals = try UnreadCounts.totals(db, of: userId)
        let here = totals.channels.first { $0.cid == channel.cid }?.read
        event["unread_messages"] = .number(JSONNumber(here?.unreadMessages ?? 0))
        event["last_read"] = here.map { .string(RFC3339.string(from: $0.lastRead)) } ?? .null
        event["total_unread_count"] = .number(JSONNumber(totals.totalUnreadCount))
        event["unread_channels"] = .number(JSONNumber(totals.unreadChannels))
    }
}
