import ChatModels
import Foundation
import GRDB
import Hummingbird

extension ChannelRoutes {
    /// The member fields the server keeps; a member's own fields are everything else.
    static let serverMemberKeys: Set<String> = [
        "user_id", "user", "status", "role", "channel_role", "created_at", "updated_at", "banned", "shadow_banned",
        "notifications_muted", "invited", "invite_accepted_at", "invite_rejected_at", "pinned_at", "archived_at",
    ]

    /// The member flags kept as the time they were set: `pinned` (the channel pinned in the
    /// member's list) becomes `pinned_at`, `archived` becomes `archived_at`.
    static let timedMemberFlags = ["pinned": "pinned_at", "archived": "archived_at"]

    /// `PATCH /channels/{type}/{id}/member/{user_id}` with `{"set": {…}, "unset": […]}`: sets and
    /// removes single fields of one membership (custom fields; `pinned` and `archived`, kept as
    /// `pinned_at` and `archived_at`), keeping the others; answers `{"channel_member"}` and tells
    /// the channel `member.updated`. A user token changes its own membership only.
    func updateMemberPartial(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "UpdateMemberPartial"
        let principal = try await state.authenticate(request)
        let cid = try state.channelId(context, operation: operation)
        let userId = context.parameters.get("userId") ?? ""
        guard !userId.isEmpty else { throw APIError.input(operation, "the member's user id is required in the path") }
        if let caller = principal.userId, caller != userId {
            throw APIError.forbidden(operation, "user \(caller) may only update its own membership")
        }
        let body = try await state.jsonBody(request, operation: operation)
        let changes = try FieldChanges(body, reserved: ChannelRoutes.serverMemberKeys, operation: operation)
        let (set, unset) = (changes.set, changes.unset)
        for flag in ChannelRoutes.timedMemberFlags.keys.sorted() {
            if let value = set[flag], value.boolValue == nil {
                throw APIError.input(operation, "\(flag) must be true or false, found \(value.kindDescription)")
            }
        }
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let (rendered, event) = try await state.store.write { db -> (JSONObject, PendingEvent) in
            _ = try DevServerState.requireChannel(db, cid, operation: operation)
            guard var member = try ChannelsTable.member(db, cid, userId) else {
                throw APIError.notFound(operation, "user \(userId) is not a member of channel \(cid.rawValue)")
            }
            for (key, value) in set {
                if let stamp = ChannelRoutes.timedMemberFlags[key] {
                    member.data[stamp] = value.boolValue == true ? member.data[stamp] ?? .string(RFC3339.string(from: now)) : nil
                } else {
                    member.data[key] = value
                }
            }
            for key in unset { member.data[ChannelRoutes.timedMemberFlags[key] ?? key] = nil }
            member.updatedAt = now
            try ChannelsTable.updateMember(db, member)
            let rendered = renderer.member(member, users: try UsersTable.fetch(db, ids: [userId]))
            var event = DevServerState.event("member.updated", cid, at: now)
            event["member"] = .object(rendered)
            event["user"] = rendered["user"]
            try DevServerState.log(db, event, cid: cid, at: now)
            return (rendered, PendingEvent(cid: cid, event: event))
        }
        await state.publish([event])
        return JSONReply(["channel_member": .object(rendered)])
    }
}
