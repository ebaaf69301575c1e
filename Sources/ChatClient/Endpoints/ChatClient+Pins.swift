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
}
