import ChatModels
import Foundation

extension ChatClient {
    /// Marks `messageId` and every later message of `cid` unread for `userId` (the configured
    /// user when nil), who hears `notification.mark_unread` (`POST .../unread`).
    public func markUnread(_ cid: ChannelId, from messageId: String, as userId: String? = nil) async throws {
        var body: JSONObject = ["message_id": .string(messageId)]
        if let user = try actingUser(userId, operation: "MarkUnread") { body["user_id"] = .string(user) }
        _ = try await perform(.post(Endpoint.channelPath(cid) + "/unread", body, idempotent: true, operation: "MarkUnread"))
    }

    /// Marks every channel of `userId` (the configured user when nil) read (`POST /channels/read`).
    public func markAllRead(as userId: String? = nil) async throws {
        var body: JSONObject = [:]
        if let user = try actingUser(userId, operation: "MarkChannelsRead") { body["user"] = ["id": .string(user)] }
        _ = try await perform(.post("/channels/read", body, idempotent: true, operation: "MarkChannelsRead"))
    }

    /// The unread messages of `userId` (the configured user when nil; a user token reads its
    /// own), in all and per channel (`GET /unread`).
    public func unreadCounts(of userId: String? = nil) async throws -> UnreadCounts {
        let user = try actingUser(userId, operation: "UnreadCounts")
        let response = try await perform(.get("/unread", query: user.map { [("user_id", $0)] } ?? [], operation: "UnreadCounts"))
        do {
            return try UnreadCounts(json: response)
        } catch {
            throw ChatClientError(code: .invalidResponse, message: "UnreadCounts answered a channel id that cannot be read: \(error)")
        }
    }
}
