import ChatModels
import Foundation

/// A flag someone put on a message for moderators.
public struct MessageFlag: Sendable, Hashable {
    /// The flagged message.
    public var message: Message
    /// Who flagged it.
    public var userId: String
    /// Why, if they said.
    public var reason: String?
    /// When.
    public var createdAt: Date?
}

extension ChatClient {
    /// Flags a message for moderators (`POST /moderation/flag`).
    public func flagMessage(_ messageId: String, reason: String? = nil, as userId: String? = nil) async throws {
        var body: JSONObject = ["target_message_id": .string(messageId)]
        if let reason { body["reason"] = .string(reason) }
        if let user = try actingUser(userId, operation: "Flag") { body["user_id"] = .string(user) }
        _ = try await perform(.post("/moderation/flag", body, idempotent: true, operation: "Flag"))
    }

    /// Takes back the flag the acting user put on a message (`POST /moderation/unflag`).
    public func unflagMessage(_ messageId: String, as userId: String? = nil) async throws {
        var body: JSONObject = ["target_message_id": .string(messageId)]
        if let user = try actingUser(userId, operation: "Unflag") { body["user_id"] = .string(user) }
        _ = try await perform(.post("/moderation/unflag", body, idempotent: true, operation: "Unflag"))
    }

    /// Flagged messages, newest first, optionally only in `cid` or only those flagged by
    /// `flaggedBy` (`GET /moderation/flags/message`; needs the API secret).
    public func messageFlags(in cid: ChannelId? = nil, flaggedBy: String? = nil, limit: Int = 25) async throws -> [MessageFlag] {
        var filter: JSONObject = [:]
        if let cid { filter["channel_cid"] = .string(cid.rawValue) }
        if let flaggedBy { filter["user_id"] = .string(flaggedBy) }
        let payload: JSONObject = ["filter_conditions": .object(filter), "limit": .number(JSONNumber(limit))]
        let response = try await perform(
            .get("/moderation/flags/message", payload: payload, operation: "QueryMessageFlags"))
        return try (response["flags"]?.arrayValue ?? []).map { flag in
            guard let message = flag["message"] else {
                throw ChatClientError(code: .invalidResponse, message: "QueryMessageFlags answered a flag without its message")
            }
            return MessageFlag(
                message: try Message(json: message), userId: flag["user"]?["id"]?.stringValue ?? "", reason: flag["reason"]?.stringValue,
                createdAt: flag["created_at"]?.stringValue.flatMap { RFC3339.date(from: $0) })
        }
    }
}
