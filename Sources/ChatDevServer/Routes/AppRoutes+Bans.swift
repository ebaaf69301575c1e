import ChatModels
import Foundation
import GRDB
import Hummingbird

extension AppRoutes {
    /// `POST /moderation/ban`: bans `target_user_id` app-wide, or in one channel (`channel_cid`,
    /// or `type` and `id` as the Python SDK sends them), for `timeout` minutes or for good. A
    /// banned user's messages, reactions and uploads are refused (403, code 17) until it ends.
    /// `delete_messages` (`"soft"` or `"hard"`) also deletes the messages it posted in the
    /// channel (app-wide: everywhere), announced with `user.messages.deleted` in each channel.
    func ban(_ request: Request) async throws -> JSONReply {
        let operation = "BanUser"
        let principal = try await state.authenticate(request)
        let body = try await state.jsonBody(request, operation: operation)
        let target = try Self.targetUser(body["target_user_id"]?.stringValue, operation: operation)
        let bannedBy =
            try body["banned_by_id"]?.stringValue ?? body["banned_by"]?["id"]?.stringValue
            ?? state.actingUser(principal, body, operation: operation)
        let cid = try Self.banChannel(
            channelCid: body["channel_cid"]?.stringValue, type: body["type"]?.stringValue, id: body["id"]?.stringValue, operation: operation)
        if body["shadow"]?.flag == true || body["ip_ban"]?.flag == true {
            throw APIError.input(operation, "shadow and IP bans are not supported by the dev server; leave out shadow and ip_ban")
        }
        let now = state.clock.now()
        let expires = try Self.expiry(body["timeout"], field: "timeout", unit: .seconds(60), unitName: "minutes", from: now, operation: operation)
        let reason = body["reason"]?.stringValue
        let deletesHard = try Self.deletionMode(body["delete_messages"], field: "delete_messages", operation: operation)
        let renderer = await state.renderer(for: request)
        let events = try await state.store.write { db -> [PendingEvent] in
            guard let targetUser = try UsersTable.fetch(db, target) else {
                throw APIError.notFound(operation, "target user \(target) does not exist")
            }
            if let cid { _ = try DevServerState.requireChannel(db, cid, operation: operation) }
            try Self.requireModerator(db, principal, cid: cid, operation: operation)
            try UsersTable.ensure(db, bannedBy, now: now)
            let ban = StoredBan(
                targetUserId: target, cid: cid, bannedBy: bannedBy, reason: reason, createdAt: now,
                expires: expires)
            try BansTable.store(db, ban)
            let banner = renderer.user(id: bannedBy, from: try UsersTable.fetch(db, ids: [bannedBy]))
            let rendered = renderer.user(targetUser)
            var event: JSONObject = ["user": .object(rendered), "created_by": .object(banner), "shadow": false]
            if let reason { event["reason"] = .string(reason) }
            if let expires = ban.expires { event["expiration"] = .string(RFC3339.string(from: expires)) }
            let banned = try Self.banEvents("user.banned", event, target: target, cid: cid, at: now, db)
            guard let deletesHard else { return banned }
            return try banned + Self.deleteMessages(of: target, rendered: rendered, in: cid.map { [$0] }, hard: deletesHard, at: now, db)
        }
        await state.publish(events)
        return JSONReply([:], status: .created)
    }

    /// `DELETE /moderation/ban?target_user_id=…` with `channel_cid`, or `type` and `id`, for a
    /// channel ban. Lifting a ban that is not there succeeds, as on the hosted service.
    func unban(_ request: Request) async throws -> JSONReply {
        let operation = "UnbanUser"
        let principal = try await state.authenticate(request)
        let target = try Self.targetUser(request.query("target_user_id"), operation: operation)
        let cid = try Self.banChannel(
            channelCid: request.query("channel_cid"), type: request.query("type"), id: request.query("id"), operation: operation)
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let events = try await state.store.write { db -> [PendingEvent] in
            try Self.requireModerator(db, principal, cid: cid, operation: operation)
            guard try BansTable.remove(db, user: target, cid: cid) else { return [] }
            let user = renderer.user(id: target, from: try UsersTable.fetch(db, ids: [target]))
            return try Self.banEvents("user.unbanned", ["user": .object(user)], target: target, cid: cid, at: now, db)
        }
        await state.publish(events)
        return JSONReply()
    }

    /// `GET /query_banned_users?payload={"filter_conditions": …}`: the bans in force, newest
    /// first. Filters: `channel_cid` and `user_id` (who is banned), each a value, `{"$eq": …}`
    /// or `{"$in": […]}`.
    func queryBannedUsers(_ request: Request) async throws -> JSONReply {
        let operation = "QueryBannedUsers"
        try await state.requireServer(request, operation, "banned users can only be queried")
        let payload = try state.payloadQuery(request, operation: operation)
        let filter = payload["filter_conditions"]?.objectValue ?? [:]
        if let unsupported = filter.members.map(\.key).first(where: { !["channel_cid", "user_id"].contains($0) }) {
            throw APIError.input(operation, "filter_conditions.\(unsupported) is not supported by the dev server; use channel_cid or user_id")
        }
        let channels = try Self.values(filter["channel_cid"], field: "channel_cid", operation: operation)
        let users = try Self.values(filter["user_id"], field: "user_id", operation: operation)
        let (limit, offset) = Self.page(payload)
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let bans = try await state.store.read { db -> [RawJSON] in
            let bans = try BansTable.list(db, cids: channels, users: users, at: now, limit: limit, offset: offset)
            let people = try UsersTable.fetch(db, ids: Set(bans.flatMap { [$0.targetUserId, $0.bannedBy] }))
            return try bans.map { ban in
                var object: JSONObject = [
                    "user": .object(renderer.user(id: ban.targetUserId, from: people)),
                    "banned_by": .object(renderer.user(id: ban.bannedBy, from: people)),
                    "created_at": .string(RFC3339.string(from: ban.createdAt)), "shadow": false,
                ]
                if let reason = ban.reason { object["reason"] = .string(reason) }
                if let expires = ban.expires { object["expires"] = .string(RFC3339.string(from: expires)) }
                if let cid = ban.cid, let channel = try ChannelsTable.fetch(db, cid) {
                    object["channel"] = .object(renderer.channel(channel, memberCount: try ChannelsTable.memberCount(db, cid), createdBy: nil))
                }
                return .object(object)
            }
        }
        return JSONReply(["bans": .array(bans)])
    }

    static func targetUser(_ value: String?, operation: String) throws -> String {
        guard let value, !value.isEmpty else { throw APIError.input(operation, "target_user_id is a required field") }
        return value
    }

    /// The channel of a channel ban, nil for an app-wide one.
    static func banChannel(channelCid: String?, type: String?, id: String?, operation: String) throws -> ChannelId? {
        if let channelCid {
            guard let cid = try? ChannelId(cid: channelCid) else {
                throw APIError.input(operation, "channel_cid \"\(channelCid)\" is not a channel id; write type:id, for example messaging:general")
            }
            return cid
        }
        switch (type, id) {
        case (nil, nil): return nil
        case (let type?, let id?):
            guard let cid = try? ChannelId(cid: "\(type):\(id)") else { throw APIError.input(operation, "\(type):\(id) is not a channel id") }
            return cid
        default: throw APIError.input(operation, "a channel ban needs both type and id (or channel_cid)")
        }
    }

    /// A server token may ban anyone; a user token only as an admin, or as a moderator of the channel.
    static func requireModerator(_ db: Database, _ principal: Principal, cid: ChannelId?, operation: String) throws {
        guard let userId = principal.userId else { return }
        if try isModerator(db, userId, in: cid) { return }
        throw APIError.forbidden(operation, "user \(userId) may not ban or unban users \(cid.map { "in \($0.rawValue)" } ?? "app-wide")")
    }

    /// Whether `userId` moderates: an admin anywhere, or a `channel_moderator` of `cid`.
    static func isModerator(_ db: Database, _ userId: String, in cid: ChannelId?) throws -> Bool {
        if try UsersTable.fetch(db, userId)?.role == "admin" { return true }
        guard let cid else { return false }
        return try ChannelsTable.member(db, cid, userId)?.channelRole == "channel_moderator"
    }

    /// The ban event, in the banned channel or in every channel of the user for an app-wide ban.
    static func banEvents(_ type: String, _ fields: JSONObject, target: String, cid: ChannelId?, at now: Date, _ db: Database) throws
        -> [PendingEvent]
    {
        let channels = try cid.map { [$0] } ?? ChannelsTable.channelIds(ofMember: target, db)
        return try channels.map { cid in
            var event = DevServerState.event(type, cid, at: now)
            for (key, value) in fields { event[key] = value }
            try DevServerState.log(db, event, cid: cid, at: now)
            return PendingEvent(cid: cid, event: event)
        }
    }
}

extension DevServerState {
    /// Fails when a ban keeps `userId` from acting in `cid` now.
    static func requireNotBanned(_ db: Database, _ cid: ChannelId, _ userId: String, at now: Date, operation: String) throws {
        guard let ban = try BansTable.active(db, user: userId, cid: cid, at: now) else { return }
        // The hosted service's words for an app-wide ban; the channel wording is ours.
        let what = ban.cid == nil ? "Your account is currently suspended from chat" : "user \(userId) is banned from channel \(cid.rawValue)"
        let until = ban.expires.map { " until \(RFC3339.string(from: $0))" } ?? ""
        throw APIError.forbidden(operation, "\(what)\(until)")
    }
}
