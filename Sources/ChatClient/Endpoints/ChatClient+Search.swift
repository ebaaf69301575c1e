import ChatModels
import Foundation

/// What a message search looks for: words of the text, or a message filter.
public enum MessageSearchQuery: Sendable {
    /// Messages whose text has every one of these words (the service's full-text search).
    case text(String)
    /// Messages matching a filter (`message_filter_conditions`), such as
    /// `["attachments.type": ["$in": ["workout"]], "user.id": "ann"]`.
    case filter(JSONObject)

    /// Messages with at least one attachment of one of `types`.
    public static func attachments(of types: AttachmentType...) -> MessageSearchQuery {
        .filter(["attachments.type": ["$in": .array(types.map { .string($0.rawValue) })]])
    }
}

/// One page of a message search.
public struct MessageSearchResults: Sendable {
    /// The matching messages, each with its `Message.cid`.
    public var messages: [Message]
    /// The cursor of the next page, for `searchMessages(…, after:)`; nil on the last page.
    public var next: String?
}

extension ChatClient {
    /// Searches the messages of the channels in `cid` (`GET /search`). A user token searches
    /// only the channels its user is a member of.
    public func searchMessages(
        _ query: MessageSearchQuery, in cid: ChannelId, sort: [(field: String, direction: Int)] = [], limit: Int = 25, after next: String? = nil
    ) async throws -> MessageSearchResults {
        try await searchMessages(query, inChannels: ["cid": .string(cid.rawValue)], sort: sort, limit: limit, after: next)
    }

    /// Searches the messages of the channels matching `channelFilter`, such as
    /// `["members": ["$in": ["ann"]]]` (`GET /search`). Pages by the `next` cursor of the
    /// previous page.
    public func searchMessages(
        _ query: MessageSearchQuery, inChannels channelFilter: JSONObject, sort: [(field: String, direction: Int)] = [], limit: Int = 25,
        after next: String? = nil
    ) async throws -> MessageSearchResults {
        guard !channelFilter.isEmpty else {
            throw ChatClientError(code: .invalidRequest, message: "a search needs a channel filter, such as [\"cid\": \"messaging:general\"]")
        }
        guard (1...100).contains(limit) else {
            throw ChatClientError(code: .invalidRequest, message: "a search's limit must be 1 to 100, not \(limit)")
        }
        var payload: JSONObject = ["filter_conditions": .object(channelFilter), "limit": .number(JSONNumber(limit))]
        switch query {
        case .text(let text): payload["query"] = .string(text)
        case .filter(let filter): payload["message_filter_conditions"] = .object(filter)
        }
        if !sort.isEmpty {
            payload["sort"] = .array(sort.map { ["field": .string($0.field), "direction": .number(JSONNumber($0.direction))] })
        }
        if let next { payload["next"] = .string(next) }
        let response = try await perform(.get("/search", payload: payload, operation: "Search"))
        let messages = try (response["results"]?.arrayValue ?? []).map { result in
            guard let message = result["message"] else {
                throw ChatClientError(code: .invalidResponse, message: "Search: a result has no message")
            }
            return try Message(json: message)
        }
        return MessageSearchResults(messages: messages, next: response["next"]?.stringValue)
    }
}
