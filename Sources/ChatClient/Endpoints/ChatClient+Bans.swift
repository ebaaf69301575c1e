import ChatModels
import Foundation

/// A ban in force: who, where (nil: app-wide), why and until when (nil: for good).
public struct UserBan: Sendable, Hashable {
    /// The banned user.
    public var userId: String
    /// Who banned them.
    public var bannedBy: String
    /// The channel, or nil for an app-wide ban.
    public var cid: ChannelId?
    /// Why, if they said.
    public var reason: String?
    /// When the ban was made.
    public var createdAt: Date?
    /// When it ends, or nil when it does not.
    public var expires: Date?
}

extension ChatClient {
    /// Bans `userId` in `cid` (or app-wide when nil) for `timeout`, rounded up to whole minutes
    /// as the service counts them, or for good (`POST /moderation/ban`). Their messages,
    /// reactions and uploads are refused until it ends or ``unbanUser(_:in:)``. With
    /// `deletingMessages`, the messages they posted in `cid` (app-wide: everywhere) are deleted
    /// too, announced in each channel with one `user.messages.deleted`.
    public func banUser(
        _ userId: String, in cid: ChannelId? = nil, reason: String? = nil, timeout: Duration? = nil,
        deletingMessages: MessageDeletionMode? = nil, as bannedBy: String? = nil
    ) async throws {
        var body: JSONObject = ["target_user_id": .string(userId)]
        if let deletingMessages { body["delete_messages"] = .string(deletingMessages.rawValue) }
        if let cid { body["channel_cid"] = .string(cid.rawValue) }
        if let reason { body["reason"] = .string(reason) }
        if let timeout {
            guard timeout > .zero else {
                throw ChatClientError(code: .invalidRequest, message: "a ban's timeout must be longer than zero; leave it out to ban for good")
            }
            body["timeout"] = .number(JSONNumber(Int((timeout.timeInterval / 60).rounded(.up))))
        }
        if let user = try actingUser(bannedBy, operation: "BanUser") { body["user_id"] = .string(user) }
        _ = try await perform(.post("/moderation/ban", body, idempotent: true, operation: "BanUser"))
    }

    /// Lifts the ban of `userId` in `cid` (or the app-wide one when nil); lifting a ban that is
    /// not there succeeds (`DELETE /moderation/ban`).
    public func unbanUser(_ userId: String, in cid: ChannelId? = nil) async throws {
        var query = [("target_user_id", userId)]
        if let cid { query.append(("channel_cid", cid.rawValue)) }
        _ = try await perform(.delete("/moderation/ban", query: query, operation: "UnbanUser"))
    }

    /// The bans in force, newest first, optionally only in `cid` or only of `userId`
    /// (`GET /query_banned_users`; needs the API secret).
    public func bannedUsers(in cid: ChannelId? = nil, userId: String? = nil, limit: Int = 25) async throws -> [UserBan] {
        var filter: JSONObject = [:]
        if let cid { filter["channel_cid"] = .string(cid.rawValue) }
        if let userId { filter["user_id"] = .string(userId) }
        let payload: JSONObject = ["filter_conditions": .object(filter), "limit": .number(JSONNumber(limit))]
        let response = try await perform(
            .get("/query_banned_users", payload: payload, operation: "QueryBannedUsers"))
        return (response["bans"]?.arrayValue ?? []).map { ban in
            UserBan(
                userId: ban["user"]?["id"]?.stringValue ?? "", bannedBy: ban["banned_by"]?["id"]?.stringValue ?? "",
                cid: ban["channel"]?["cid"]?.stringValue.flatMap { try? ChannelId(cid: $0) }, reason: ban["reason"]?.stringValue,
                createdAt: ban["created_at"]?.stringValue.flatMap { RFC3339.date(from: $0) },
                expires: ban["expires"]?.stringValue.flatMap { RFC3339.date(from: $0) })
        }
    }
}
