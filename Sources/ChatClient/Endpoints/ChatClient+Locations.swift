import ChatModels
import Foundation

extension ChatClient {
    /// Moves a live location `userId` (the configured user when nil) shares with `messageId`,
    /// or changes when it ends (`PUT /users/live_locations`); the channel gets
    /// `message.updated`. Only its sharer may, and only while it is shared.
    @discardableResult
    public func updateLiveLocation(
        _ messageId: String, latitude: Double? = nil, longitude: Double? = nil, endAt: Date? = nil, as userId: String? = nil
    ) async throws -> SharedLocation {
        let operation = "UpdateLiveLocation"
        var body: JSONObject = ["message_id": .string(messageId)]
        if let latitude { body["latitude"] = .number(JSONNumber(latitude)) }
        if let longitude { body["longitude"] = .number(JSONNumber(longitude)) }
        if let endAt { body["end_at"] = .string(RFC3339.string(from: endAt)) }
        let query = try actingUser(userId, operation: operation).map { [("user_id", $0)] } ?? []
        let response = try await perform(.put("/users/live_locations", body, query: query, operation: operation))
        return try SharedLocation(json: .object(response), operation: operation)
    }

    /// Stops sharing a live location now.
    @discardableResult
    public func stopLiveLocation(_ messageId: String, as userId: String? = nil) async throws -> SharedLocation {
        try await updateLiveLocation(messageId, endAt: Date(), as: userId)
    }

    /// The live locations `userId` (the configured user when nil) still shares
    /// (`GET /users/live_locations`), the earliest first.
    public func liveLocations(of userId: String? = nil) async throws -> [SharedLocation] {
        let operation = "GetUserLiveLocations"
        let query = try actingUser(userId, operation: operation).map { [("user_id", $0)] } ?? []
        let response = try await perform(.get("/users/live_locations", query: query, operation: operation))
        return try (response["active_live_locations"]?.arrayValue ?? []).map { try SharedLocation(json: $0, operation: operation) }
    }
}

extension ChatChannel {
    /// Shares a location in this channel as `userId` (the configured user when nil): once, or
    /// live until `until`, to be moved with ``ChatClient/updateLiveLocation(_:latitude:longitude:endAt:as:)``.
    @discardableResult
    public func shareLocation(
        latitude: Double, longitude: Double, until endAt: Date? = nil, text: String = "", deviceId: String = "chatbotkit",
        as userId: String? = nil
    ) async throws -> Message {
        let share = LocationShare(latitude: latitude, longitude: longitude, endAt: endAt, deviceId: deviceId)
        return try await client.sendMessage(OutgoingMessage(text: text, sharedLocation: share), to: cid, as: userId)
    }
}
