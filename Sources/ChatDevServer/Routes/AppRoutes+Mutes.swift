import ChatModels
import Foundation
import GRDB
import Hummingbird

extension AppRoutes {
    /// `POST /moderation/mute` with `target_id` or `target_ids` and `timeout` (minutes): the
    /// acting user mutes other users, for good or until the timeout; muting again renews it.
    /// The user's connections hear `notification.mutes_updated` with their `me`.
    func mute(_ request: Request) async throws -> JSONReply {
        try await changeUserMutes(request, operation: "MuteUser", muting: true)
    }

    /// `POST /moderation/unmute` with `target_id` or `target_ids`: ends the acting user's mutes
    /// of them (one not muted is already unmuted).
    func unmute(_ request: Request) async throws -> JSONReply {
        try await changeUserMutes(request, operation: "UnmuteUser", muting: false)
    }

    /// `POST /moderation/mute/channel` with `channel_cid` or `channel_cids` and `expiration`
    /// (milliseconds): the acting member mutes channels of theirs, for good or for a while.
    /// Their connections hear `notification.channel_mutes_updated`.
    func muteChannel(_ request: Request) async throws -> JSONReply {
        try await changeChannelMutes(request, operation: "MuteChannel", muting: true)
    }

    /// `POST /moderation/unmute/channel` with `channel_cid` or `channel_cids`.
    func unmuteChannel(_ request: Request) async throws -> JSONReply {
        try await changeChannelMutes(request, operation: "UnmuteChannel", muting: false)
    }

    private func changeUserMutes(_ request: Request, operation: String, muting: Bool) async throws -> JSONReply {
        try await changeMutes(
            request, operation: operation, muting: muting, kind: .user, keys: ("target_id", "target_ids"), replyKeys: ("mute", "mutes"),
            expiry: ("timeout", .seconds(60), "minutes"), event: "notification.mutes_updated"
        ) { target, userId, db in
            guard target != userId else { throw APIError.input(operation, "user \(userId) cannot mute themselves") }
            guard try UsersTable.fetch(db, target) != nil else { throw APIError.notFound(operation, "user \(target) does not exist") }
        } render: { renderer, mute, db in
            try renderer.mute(mute, db)
        }
    }

    private func changeChannelMutes(_ request: Request, operation: String, muting: Bool) async throws -> JSONReply {
        try await changeMutes(
            request, operation: operation, muting: muting, kind: .channel, keys: ("channel_cid", "channel_cids"),
            replyKeys: ("channel_mute", "channel_mutes"), expiry: ("expiration", .milliseconds(1), "milliseconds"),
            event: "notification.channel_mutes_updated"
        ) { target, userId, db in
            guard let cid = try? ChannelId(cid: target) else { throw APIError.input(operation, "\(target) is not a channel id (type:id)") }
            _ = try DevServerState.requireChannel(db, cid, operation: operation)
            guard try ChannelsTable.member(db, cid, userId) != nil else {
                throw APIError.forbidden(operation, "user \(userId) is not a member of channel \(cid.rawValue)")
            }
        } render: { renderer, mute, db in
            try renderer.channelMute(mute, db)
        }
    }

    /// Mutes or unmutes (`muting`) the targets named by `keys` for the acting user, once
    /// `check` accepts every one of them, and answers with the mutes made (under `replyKeys`:
    /// one for a single target, the other for a list) and the user's `own_user`; the user's
    /// connections hear `event`.
    private func changeMutes(
        _ request: Request, operation: String, muting: Bool, kind: StoredMute.Kind, keys: (one: String, many: String),
        replyKeys: (one: String, many: String), expiry: (field: String, unit: Duration, unitName: String), event: String,
        check: @escaping @Sendable (_ target: String, _ userId: String, Database) throws -> Void,
        render: @escaping @Sendable (Renderer, StoredMute, Database) throws -> JSONObject?
    ) async throws -> JSONReply {
        let principal = try await state.authenticate(request)
        let body = try await state.jsonBody(request, operation: operation)
        let userId = try state.actingUser(principal, body, operation: operation)
        let (targets, single) = try Self.targets(body, one: keys.one, many: keys.many, operation: operation)
        let now = state.clock.now()
        let expires =
            muting
            ? try Self.expiry(body[expiry.field], field: expiry.field, unit: expiry.unit, unitName: expiry.unitName, from: now, operation: operation)
            : nil
        let renderer = await state.renderer(for: request)
        let (reply, me) = try await state.store.write { db -> (JSONObject, JSONObject) in
            let user = try UsersTable.ensure(db, userId, now: now)
            for target in targets { try check(target, userId, db) }
            var mutes: [RawJSON] = []
            for target in targets {
                guard muting else {
                    try MutesTable.remove(db, userId: userId, kind: kind, target: target)
                    continue
                }
                let stored = try MutesTable.store(
                    db, StoredMute(userId: userId, kind: kind, target: target, createdAt: now, updatedAt: now, expires: expires))
                if let rendered = try render(renderer, stored, db) { mutes.append(.object(rendered)) }
            }
            let me = try renderer.ownUser(db, user)
            var reply: JSONObject = ["own_user": .object(me)]
            if muting, let first = mutes.first { reply[single ? replyKeys.one : replyKeys.many] = single ? first : .array(mutes) }
            return (reply, me)
        }
        await notify(userId, event, me: me, at: now)
        return JSONReply(reply, status: .created)
    }

    /// Tells the user's connections that their mutes changed, with their `me`.
    private func notify(_ userId: String, _ type: String, me: JSONObject, at now: Date) async {
        let event: JSONObject = ["type": .string(type), "created_at": .string(RFC3339.string(from: now)), "me": .object(me)]
        await state.hub.publish(event, toUsers: [userId])
    }

    /// The ids named by `one` (a string) or `many` (1 to 100 strings), and whether it was `one`.
    static func targets(_ body: JSONObject, one: String, many: String, operation: String) throws -> ([String], Bool) {
        switch (body[one], body[many]) {
        case (.string(let id)?, nil) where !id.isEmpty:
            return ([id], true)
        case (nil, .array(let values)?):
            let ids = values.compactMap(\.stringValue).filter { !$0.isEmpty }
            guard !ids.isEmpty, ids.count == values.count, ids.count <= 100 else {
                throw APIError.input(operation, "\(many) must be an array of 1 to 100 ids")
            }
            return (ids, false)
        default:
            throw APIError.input(operation, "either \(one) (an id) or \(many) (an array of ids) is required, not both")
        }
    }
}
