import ChatModels
import Foundation

extension ChatClient {
    /// Pins a message in its channel, for good or `until` a time (`PUT /messages/{id}` setting
    /// `pinned` and `pin_expires`). Pinning again changes only the expiry; the service keeps who
    /// pinned it and when. With a server token, `userId` names who pins it.
    @discardableResult
    public func pinMessage(_ id: String, until expiry: Date? = nil, as userId: String? = nil) async throws -> Message {
        let expires: RawJSON = expiry.map { .string(RFC3339.string(from: $0)) } ?? .null
        return try await partialUpdateMessage(id, set: ["pinned": true, "pin_expires": expires], as: userId, skipEnrichURL: true)
    }

    /// Unpins a message.
    @discardableResult
    public func unpinMessage(_ id: String, as userId: String? = nil) async throws -> Message {
        try await partialUpdateMessage(id, set: ["pinned": false], as: userId, skipEnrichURL: true)
    }

    /// The channel's pins in force, the most recently pinned first, at most `limit` (1 to 100);
    /// `pinnedBefore` (the last page's earliest `Message.pinnedAt`) pages further back.
    public func pinnedMessages(in cid: ChannelId, limit: Int = 10, pinnedBefore: Date? = nil) async throws -> [Message] {
        let operation = "GetPinnedMessages"
        guard (1...100).contains(limit) else {
            throw ChatClientError(code: .invalidRequest, message: "\(operation): limit must be from 1 to 100, not \(limit)")
        }
        var payload: JSONObject = ["limit": .number(JSONNumber(limit)), "sort": [["field": "pinned_at", "direction": -1]]]
        if let pinnedBefore { payload["pinned_at_before"] = .string(RFC3339.string(from: pinnedBefore)) }
        let response = try await perform(.get(Endpoint.channelPath(cid) + "/pinned_messages", payload: payload, operation: operation))
        return try Self.models(Message.self, at: "messages", noun: "message", in: response, operation: operation)
    }
}
