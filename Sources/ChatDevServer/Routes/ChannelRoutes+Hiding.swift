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
        try await setHidden(true, clearingHistory: clearsHistory, request, context, body, operation)
        return JSONReply([:], status: .created)
    }

    /// `POST /channels/{type}/{id}/show` (and `user_id` with a server token): the member's
    /// channel queries list the channel again; `channel.visible` says so. Showing a channel
    /// that is not hidden changes nothing and tells no one.
    func show(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "ShowChannel"
        let body = try await state.jsonBody(request, operation: operation)
        try await setHidden(false, clearingHistory: false, request, context, body, operation)
        return JSONReply([:], status: .created)
    }

    /// Hides or shows the channel for the acting member (4 for someone who is not one), clearing
    /// its history up to the channel's last message when asked, and tells its connections and
    /// the webhook when that changed anything.
    private func setHidden(
        _ isHidden: Bool, clearingHistory: Bool, _ request: Request, _ context: DevRequestContext, _ body: JSONObject, _ operation: String
    ) async throws {
        let principal = try await state.authenticate(request)
        let cid = try state.channelId(context, operation: operation)
        let userId = try state.actingUser(principal, body, operation: operation)
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let changed = try await state.store.write { db -> JSONObject? in
            let channel = try DevServerState.requireChannel(db, cid, operation: operation)
            let member = try DevServerState.requireMember(db, cid, userId, operation: operation)
            // The history to clear now: up to the channel's last message, unless already so.
            let lastSeq = clearingHistory ? try MessagesTable.lastSeq(db, cid, upTo: nil) : nil
            let clearedSeq = lastSeq == member.historyClearedSeq ? nil : lastSeq
            guard member.isHidden != isHidden || clearedSeq != nil else { return nil }
            try ChannelsTable.setHidden(db, cid, userId, isHidden)
            if let clearedSeq { try ChannelsTable.clearHistory(db, cid, userId, upTo: clearedSeq) }
            let users = try UsersTable.fetch(db, ids: [userId, channel.createdBy].compactMap { $0 })
            var rendered = renderer.channel(
                channel, memberCount: try ChannelsTable.memberCount(db, cid), createdBy: channel.createdBy.flatMap { users[$0] })
            rendered["hidden"] = .bool(isHidden)
            var event = DevServerState.event(isHidden ? "channel.hidden" : "channel.visible", cid, at: now)
            event["channel"] = .object(rendered)
            event["user"] = .object(renderer.user(id: userId, from: users))
            if isHidden { event["clear_history"] = .bool(clearingHistory) }
            return event
        }
        guard let event = changed else { return }
        await state.publishUserEvent(event, to: [userId])
    }
}
