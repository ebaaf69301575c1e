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
        let principal = try await state.authenticate(request)
        let body = try await state.jsonBody(request, operation: operation)
        let userId = try state.actingUser(principal, body, operation: operation)
        let (targets, single) = try Self.targets(body, one: "target_id", many: "target_ids", operation: operation)
        let now = state.clock.now()
        let expires = muting ? try Self.expiry(body["timeout"], field: "timeout", unit: 60, unitName: "minutes", from: now, operation: operation) : nil
        let renderer = await state.renderer(for: request)
        let (reply, me) = try await state.store.write { db -> (JSONObject, JSONObject) in
            let user = try UsersTable.ensure(db, userId, now: now)
            for target in targets {
                guard target != userId else { throw APIError.input(operation, "user \(userId) cannot mute themselves") }
                guard try UsersTable.fetch(db, target) != nil else { throw APIError.notFound(operation, "user \(target) does not exist") }
            }
            var mutes: [RawJSON] = []
            for target in targets {
                if muting {
                    let stored = try MutesTable.store(
                        db, StoredMute(userId: userId, kind: .user, target: target, createdAt: now, updatedAt: now, expires: expires))
                    mutes.append(.object(try renderer.mute(stored, db)))
                } else {
                    try MutesTable.remove(db, userId: userId, kind: .user, target: target)
                }
            }
            let me = try renderer.ownUser(db, user)
            var reply: JSONObject = ["own_user": .object(me)]
            if muting { reply[single ? "mute" : "mutes"] = single ? mutes[0] : .array(mutes) }
            return (reply, me)
        }
        await notify(userId, "notification.mutes_updated", me: me, at: now)
        return JSONReply(reply, status: .created)
    }

    private func changeChannelMutes(_ request: Request, operation: String, muting: Bool) async throws -> JSONReply {
        let principal = try await state.authenticate(request)
        let body = try await state.jsonBody(request, operation: operation)
        let userId = try state.actingUser(principal, body, operation: operation)
        let (names, single) = try Self.targets(body, one: "channel_cid", many: "channel_cids", operation: operation)
        let cids = try names.map { name in
            guard let cid = try? ChannelId(cid: name) else { throw APIError.input(operation, "\(name) is not a channel id (type:id)") }
            return cid
        }
        let now = state.clock.now()
        let expires =
            muting ? try Self.expiry(body["expiration"], field: "expiration", unit: 0.001, unitName: "milliseconds", from: now, operation: operation) : nil
        let renderer = await state.renderer(for: request)
        let (reply, me) = try await state.store.write { db -> (JSONObject, JSONObject) in
            let user = try UsersTable.ensure(db, userId, now: now)
            for cid in cids {
                _ = try DevServerState.requireChannel(db, cid, operation: operation)
                guard try ChannelsTable.member(db, cid, userId) != nil else {
                    throw APIError.forbidden(operation, "user \(userId) is not a member of channel \(cid.rawValue)")
                }
            }
            var mutes: [RawJSON] = []
            for cid in cids {
                if muting {
                    let stored = try MutesTable.store(
                        db, StoredMute(userId: userId, kind: .channel, target: cid.rawValue, createdAt: now, updatedAt: now, expires: expires))
                    if let rendered = try renderer.channelMute(stored, db) { mutes.append(.object(rendered)) }
                } else {
                    try MutesTable.remove(db, userId: userId, kind: .channel, target: cid.rawValue)
                }
            }
            let me = try renderer.ownUser(db, user)
            var reply: JSONObject = ["own_user": .object(me)]
            if muting { reply[single ? "channel_mute" : "channel_mutes"] = single ? mutes[0] : .array(mutes) }
            return (reply, me)
        }
        await notify(userId, "notification.channel_mutes_updated", me: me, at: now)
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

    /// The expiry `value` sets: nil when absent (for good), else `value` × `unit` seconds after
    /// `now`, for a whole number of at least 1.
    static func expiry(_ value: RawJSON?, field: String, unit: Double, unitName: String, from now: Date, operation: String) throws -> Date? {
        guard let value, value != .null else { return nil }
        guard let amount = value.intValue, amount >= 1 else {
            throw APIError.input(operation, "\(field) must be a whole number of \(unitName), at least 1")
        }
        return now.addingTimeInterval(Double(amount) * unit)
    }
}
