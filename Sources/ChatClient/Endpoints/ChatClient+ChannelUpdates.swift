import ChatModels
import Foundation

extension ChatClient {
    /// Sets and unsets fields of a channel (`PATCH /channels/{type}/{id}`): `name`, `image`,
    /// custom fields, and `frozen`. Fields the server owns (`cid`, `created_by`, `config`, ...)
    /// are refused. Needs a server token, or a user who created, moderates or administers it.
    @discardableResult
    public func updateChannelPartial(_ cid: ChannelId, set: [String: RawJSON] = [:], unset: [String] = []) async throws -> Channel {
        let body: JSONObject = ["set": .object(JSONObject(set)), "unset": .array(unset.map(RawJSON.string))]
        let response = try await perform(
            Endpoint(method: "PATCH", path: Endpoint.channelPath(cid), body: body, isIdempotent: true, operation: "UpdateChannelPartial"))
        return try ChatClient.channel(in: response, operation: "UpdateChannelPartial")
    }

    /// Freezes a channel: its users can no longer post or react until it is unfrozen. Calls
    /// made with a server token (bots) are not held back.
    @discardableResult
    public func freezeChannel(_ cid: ChannelId) async throws -> Channel {
        try await updateChannelPartial(cid, set: ["frozen": true])
    }

    /// Unfreezes a frozen channel.
    @discardableResult
    public func unfreezeChannel(_ cid: ChannelId) async throws -> Channel {
        try await updateChannelPartial(cid, set: ["frozen": false])
    }

    /// Empties a channel (`POST .../truncate`): its messages up to `upTo` (default: all) are
    /// soft-deleted, or removed for good with `hardDelete`, and leave the channel's history.
    /// `notice` is posted afterwards as a system message by the acting user.
    @discardableResult
    public func truncateChannel(
        _ cid: ChannelId, hardDelete: Bool = false, upTo: Date? = nil, notice: String? = nil, as userId: String? = nil
    ) async throws -> Channel {
        var body: JSONObject = ["hard_delete": .bool(hardDelete)]
        if let upTo { body["truncated_at"] = .string(RFC3339.string(from: upTo)) }
        let user = try actingUser(userId, operation: "TruncateChannel")
        if let user { body["user_id"] = .string(user) }
        if let notice {
            var message: JSONObject = ["text": .string(notice), "type": "system"]
            if let user { message["user_id"] = .string(user) }
            body["message"] = .object(message)
        }
        let response = try await perform(.post(Endpoint.channelPath(cid) + "/truncate", body, operation: "TruncateChannel"))
        return try ChatClient.channel(in: response, operation: "TruncateChannel")
    }

    /// Deletes a channel: it is gone for every member, and its messages with it (soft-deleted,
    /// or removed for good with `hardDelete`). A channel created again with the same id starts
    /// empty.
    @discardableResult
    public func deleteChannel(_ cid: ChannelId, hardDelete: Bool = false) async throws -> Channel {
        let response = try await perform(
            .delete(Endpoint.channelPath(cid), query: hardDelete ? [("hard_delete", "true")] : [], operation: "DeleteChannel"))
        return try ChatClient.channel(in: response, operation: "DeleteChannel")
    }

    /// Hides `cid` from `userId`'s channel list (the configured user when nil): its channel
    /// queries leave it out (a `hidden: true` filter lists it) until ``showChannel(_:as:)`` or a
    /// new message in it. `clearingHistory` also takes the messages sent so far out of what the
    /// user reads of it, for good (`POST /channels/{type}/{id}/hide`).
    public func hideChannel(_ cid: ChannelId, clearingHistory: Bool = false, as userId: String? = nil) async throws {
        var body: JSONObject = ["clear_history": .bool(clearingHistory)]
        if let user = try actingUser(userId, operation: "HideChannel") { body["user_id"] = .string(user) }
        _ = try await perform(.post(Endpoint.channelPath(cid) + "/hide", body, idempotent: true, operation: "HideChannel"))
    }

    /// Lists a hidden channel in `userId`'s channel queries again (`POST /channels/{type}/{id}/show`).
    public func showChannel(_ cid: ChannelId, as userId: String? = nil) async throws {
        var body: JSONObject = [:]
        if let user = try actingUser(userId, operation: "ShowChannel") { body["user_id"] = .string(user) }
        _ = try await perform(.post(Endpoint.channelPath(cid) + "/show", body, idempotent: true, operation: "ShowChannel"))
    }

    /// Deletes up to 100 channels in the background (`POST /channels/delete`), each as
    /// ``deleteChannel(_:hardDelete:)`` does. Answers the id of the task to follow with
    /// ``task(_:)``, whose result says per channel `ok` or why it was not deleted.
    public func deleteChannels(_ cids: [ChannelId], hardDelete: Bool = false) async throws -> String {
        let body: JSONObject = ["cids": .array(cids.map { .string($0.rawValue) }), "hard_delete": .bool(hardDelete)]
        return try await taskId(of: .post("/channels/delete", body, operation: "DeleteChannels"))
    }

    /// Sets and removes single fields of one membership, keeping the others (`PATCH
    /// /channels/{type}/{id}/member/{user_id}`): custom fields such as a member's standing in
    /// the channel, or `pinned` and `archived`. The channel hears `member.updated`.
    @discardableResult
    public func partialUpdateMember(_ userId: String, in cid: ChannelId, set: [String: RawJSON] = [:], unset: [String] = []) async throws
        -> Member
    {
        let operation = "UpdateMemberPartial"
        let body: JSONObject = ["set": .object(JSONObject(set)), "unset": .array(unset.map(RawJSON.string))]
        let response = try await perform(
            Endpoint(
                method: "PATCH", path: Endpoint.channelPath(cid) + "/member/\(Endpoint.escape(userId))", body: body, isIdempotent: true,
                operation: operation))
        return try Self.model(Member.self, at: "channel_member", in: response, operation: operation)
    }

    /// The members of a channel that match `filter` (`GET /members`), such as
    /// `["banned": true]`, `["channel_role": "channel_moderator"]` or
    /// `["name": ["$autocomplete": "ali"]]`; in join order unless `sort` says otherwise.
    public func queryMembers(
        of cid: ChannelId, filter: JSONObject = [:], sort: [(field: String, direction: Int)] = [], limit: Int = 100, offset: Int = 0
    ) async throws -> [Member] {
        let payload: JSONObject = [
            "type": .string(cid.type.rawValue), "id": .string(cid.id), "filter_conditions": .object(filter),
            "sort": .array(sort.map { ["field": .string($0.field), "direction": .number(JSONNumber($0.direction))] }),
            "limit": .number(JSONNumber(limit)), "offset": .number(JSONNumber(offset)),
        ]
        let response = try await perform(.get("/members", payload: payload, operation: "QueryMembers"))
        return try ChatClient.models(Member.self, at: "members", noun: "member", in: response, operation: "QueryMembers")
    }

    /// The reactions of a message, newest first (`GET /messages/{id}/reactions`).
    public func reactions(of messageId: String, limit: Int = 25, offset: Int = 0) async throws -> [Reaction] {
        let response = try await perform(
            .get(
                "/messages/\(Endpoint.escape(messageId))/reactions", query: [("limit", String(limit)), ("offset", String(offset))],
                operation: "GetReactions"))
        return try ChatClient.models(Reaction.self, at: "reactions", noun: "reaction", in: response, operation: "GetReactions")
    }

    static func channel(in response: JSONObject, operation: String) throws -> Channel {
        try model(Channel.self, at: "channel", in: response, operation: operation)
    }
}
