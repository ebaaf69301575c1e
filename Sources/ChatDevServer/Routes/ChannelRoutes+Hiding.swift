import ChatModels
import Foundation
import GRDB
import Hummingbird

/// Hiding a channel from one member's channel list, and showing it again.
extension ChannelRoutes {
    /// `POST /channels/{type}/{id}/hide` with `clear_history` (and `user_id` with a server
    /// token): the member's channel queries leave the channel out (`hidden: true` lists it)
    /// until it shows it again or a new message arrives; `clear_history` also takes the
    /// messages sent so far out of what the member reads of it, for good. The member's
    /// connections and the app's webhook hear `channel.hidden`.
    func hide(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "HideChannel"
        let body = try await state.jsonBody(request, operation: operation)
        if let clear = body["clear_history"], !clear.isNull, clear.boolValue == nil {
            throw APIError.input(operation, "clear_history must be true or false, not \(clear.kindDescription)")
        }
        let clearsHistory = body["clear_history"]?.boolValue ?? false
        try await setHidden(true, request, context, body, operation) { db, cid, member in
            clearsHistory ? try MessagesTable.lastSeq(db, cid, upTo: nil) ?? member.historyClearedSeq : member.historyClearedSeq
        } event: { event in
            event["clear_history"] = .bool(clearsHistory)
        }
        return JSONReply([:], status: .created)
    }

    /// `POST /channels/{type}/{id}/show` (and `user_id` with a server token): the member's
    /// channel queries list the channel again; `channel.visible` says so. Showing a channel
    /// that is not hidden changes nothing and tells no one.
    func show(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "ShowChannel"
        let body = try await state.jsonBody(request, operation: operation)
        try await setHidden(false, request, context, body, operation) { _, _, member in member.historyClearedSeq } event: { _ in }
        return JSONReply([:], status: .created)
    }

    /// Hides or shows the channel for the acting member (4 for someone who is not one), keeping
    /// the history it cleared as `cleared` says, and tells its connections and the webhook
    /// when that changed anything.
    private func setHidden(
        _ isHidden: Bool, _ request: Request, _ context: DevRequestContext, _ body: JSONObject, _ operation: String,
        cleared: @escaping @Sendable (Database, ChannelId, StoredMember) throws -> Int64?, event fill: (inout JSONObject) -> Void
    ) async throws {
        let principal = try await state.authenticate(request)
        let cid = try state.channelId(context, operation: operation)
        let userId = try state.actingUser(principal, body, operation: operation)
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let changed = try await state.store.write { db -> JSONObject? in
            let channel = try DevServerState.requireChannel(db, cid, operation: operation)
            guard let member = try ChannelsTable.member(db, cid, userId) else {
                throw APIError.input(operation, "user \(userId) is not a member of channel \(cid.rawValue)")
            }
            let clearedSeq = try cleared(db, cid, member)
            guard member.isHidden != isHidden || member.historyClearedSeq != clearedSeq else { return nil }
            try ChannelsTable.setHidden(db, cid, userId, isHidden, historyClearedSeq: clearedSeq)
            let users = try UsersTable.fetch(db, ids: [userId, channel.createdBy].compactMap { $0 })
            var rendered = renderer.channel(
                channel, memberCount: try ChannelsTable.memberCount(db, cid), createdBy: channel.createdBy.flatMap { users[$0] })
            rendered["hidden"] = .bool(isHidden)
            var event = DevServerState.event(isHidden ? "channel.hidden" : "channel.visible", cid, at: now)
            event["channel"] = .object(rendered)
            event["user"] = .object(renderer.user(id: userId, from: users))
            return event
        }
        guard var event = changed else { return }
        fill(&event)
        await state.publishUserEvent(event, to: [userId])
    }
}
