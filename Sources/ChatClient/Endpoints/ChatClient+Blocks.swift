import ChatModels
import Foundation

extension ChatClient {
    /// `userId` (the configured user when nil) blocks `blockedUserId` (`POST /users/block`):
    /// their one-to-one channels are hidden for `userId`, the blocked user can no longer post
    /// in them nor add `userId` to channels, and its messages stop counting as unread. Group
    /// channels are unaffected.
    public func blockUser(_ blockedUserId: String, as userId: String? = nil) async throws {
        var body: JSONObject = ["blocked_user_id": .string(blockedUserId)]
        if let user = try actingUser(userId, operation: "BlockUsers") { body["user_id"] = .string(user) }
        _ = try await perform(.post("/users/block", body, idempotent: true, operation: "BlockUsers"))
    }

    /// Ends `userId`'s block of `blockedUserId` (`POST /users/unblock`); ending none succeeds.
    public func unblockUser(_ blockedUserId: String, as userId: String? = nil) async throws {
        var body: JSONObject = ["blocked_user_id": .string(blockedUserId)]
        if let user = try actingUser(userId, operation: "UnblockUsers") { body["user_id"] = .string(user) }
        _ = try await perform(.post("/users/unblock", body, idempotent: true, operation: "UnblockUsers"))
    }

    /// The ids of the users `userId` blocked, oldest block first (`GET /users/block`).
    public func blockedUsers(of userId: String? = nil) async throws -> [String] {
        let query = try actingUser(userId, operation: "GetBlockedUsers").map { [("user_id", $0)] } ?? []
        let response = try await perform(.get("/users/block", query: query, operation: "GetBlockedUsers"))
        return (response["blocks"]?.arrayValue ?? []).compactMap { $0["blocked_user_id"]?.stringValue }
    }
}
