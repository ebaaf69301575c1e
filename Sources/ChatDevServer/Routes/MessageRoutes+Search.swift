import ChatModels
import Foundation
import GRDB
import Hummingbird

extension MessageRoutes {
    /// The sort fields search understands. The dev server scores no relevance, so `relevance`
    /// leaves the order as sent.
    static let searchSortFields: Set<String> = ["relevance", "created_at", "updated_at", "id"]

    /// `GET /search?payload={"filter_conditions": …, "query" | "message_filter_conditions": …}`:
    /// the messages of the matching channels that match the text query or the message filter,
    /// each with its `channel`. Without a `sort`, results come in the order they were sent.
    /// Pages by `offset` or by the opaque `next` of the previous page, not both.
    func search(_ request: Request) async throws -> JSONReply {
        let operation = "Search"
        let principal = try await state.authenticate(request)
        let payload = try state.payloadQuery(request, operation: operation)
        guard let channelConditions = payload["filter_conditions"]?.objectValue, !channelConditions.isEmpty else {
            throw APIError.input(operation, "filter_conditions must be a channel filter, such as {\"cid\": \"messaging:general\"}")
        }
        let channelFilter = try ChannelFilter(channelConditions, operation: operation)
        let messageFilter = try Self.messageFilter(payload, operation: operation)
        let sort = try Self.searchSort(payload["sort"], operation: operation)
        let (limit, offset) = try Self.searchPage(payload, sorted: !sort.isEmpty, operation: operation)
        let renderer = await state.renderer(for: request)
        let (results, more) = try await state.store.read { db -> ([RawJSON], Bool) in
            let channels = try channelFilter.channels(visibleTo: principal, viewer: nil, db)
            guard !channels.isEmpty else { return ([], false) }
            var conditions = SQLConditions("deleted_at IS NULL")
            conditions.add("cid", in: Set(channels.map(\.cid.rawValue)))
            let candidates = try Row.fetchAll(db, cached: "SELECT * FROM messages WHERE \(conditions.sql) ORDER BY seq", arguments: conditions.arguments)
                .map(MessagesTable.decode)
            let matches = Self.sorted(candidates.filter(messageFilter.matches), by: sort)
            let page = Array(matches.dropFirst(offset).prefix(limit))
            // Each channel of the page rendered once, however many of its messages the page holds.
            let pageCids = Set(page.map(\.cid))
            let renderedChannels = try Dictionary(
                uniqueKeysWithValues: channels.filter { pageCids.contains($0.cid) }.map { channel in
                    (channel.cid, renderer.channel(channel, memberCount: try ChannelsTable.memberCount(db, channel.cid), createdBy: nil))
                })
            let rendered = try renderer.messages(page, viewer: principal.userId, in: db)
            let results = zip(page, rendered).map { stored, message -> RawJSON in
                var message = message
                if let channel = renderedChannels[stored.cid] { message["channel"] = .object(channel) }
                return ["message": .object(message)]
            }
            return (results, matches.count > offset + limit)
        }
        var reply: JSONObject = ["results": .array(results)]
        if more { reply["next"] = .string(Self.cursor(offset + limit)) }
        if offset > 0 { reply["previous"] = .string(Self.cursor(max(0, offset - limit))) }
        return JSONReply(reply)
    }

    /// The message side of a search: a text `query` or `message_filter_conditions`, exactly one.
    static func messageFilter(_ payload: JSONObject, operation: String) throws -> MessageFilter {
        switch (payload["query"], payload["message_filter_conditions"]) {
        case (nil, nil):
            throw APIError.input(operation, "either query or message_filter_conditions must be set")
        case (.some, .some):
            throw APIError.input(operation, "query and message_filter_conditions cannot be set at the same time")
        case (.some(let query), nil):
            guard let text = query.stringValue else { throw APIError.input(operation, "query must be a string") }
            return try MessageFilter(query: text, operation: operation)
        case (nil, .some(let conditions)):
            guard let object = conditions.objectValue, !object.isEmpty else {
                throw APIError.input(operation, "message_filter_conditions must be a non-empty object")
            }
            return try MessageFilter(object, operation: operation)
        }
    }

    /// `sort` as `[{"field": …, "direction": 1 | -1}]`.
    static func searchSort(_ value: RawJSON?, operation: String) throws -> [(field: String, ascending: Bool)] {
        guard let value, !value.isNull else { return [] }
        guard let items = value.arrayValue else { throw APIError.input(operation, "sort must be an array of {field, direction}") }
        return try items.map { item in
            guard let field = item["field"]?.stringValue, let direction = item["direction"]?.intValue, direction == 1 || direction == -1 else {
                throw APIError.input(operation, "each sort item needs a field and a direction of 1 or -1, not \(item)")
            }
            guard searchSortFields.contains(field) else {
                throw APIError.input(
                    operation, "sort field \"\(field)\" is not supported by the dev server; use \(searchSortFields.sorted().joined(separator: ", "))")
            }
            return (field, direction == 1)
        }
    }

    /// The page a search asks for: `limit` (1...100, 25 when absent), and `offset` or `next`
    /// (an offset only without a sort).
    static func searchPage(_ payload: JSONObject, sorted: Bool, operation: String) throws -> (limit: Int, offset: Int) {
        let (limit, offset) = AppRoutes.page(payload)
        let next = payload["next"].flatMap { $0.isNull ? nil : $0 }
        // The hosted service's rule: an offset is only meaningful in the unsorted order.
        if payload["offset"] != nil, sorted || next != nil {
            throw APIError.input(operation, "cannot use offset with next or sort parameters")
        }
        guard let next else { return (limit, offset) }
        guard let text = next.stringValue, let position = position(ofCursor: text) else {
            throw APIError.input(operation, "next must be the next or previous value of an earlier search's response")
        }
        return (limit, position)
    }

    /// An opaque cursor for the result at `offset`.
    static func cursor(_ offset: Int) -> String {
        Data("search:\(offset)".utf8).base64EncodedString()
    }

    static func position(ofCursor cursor: String) -> Int? {
        guard let data = Data(base64Encoded: cursor), let text = String(data: data, encoding: .utf8), text.hasPrefix("search:") else {
            return nil
        }
        return Int(text.dropFirst("search:".count)).flatMap { $0 >= 0 ? $0 : nil }
    }

    static func sorted(_ messages: [StoredMessage], by sort: [(field: String, ascending: Bool)]) -> [StoredMessage] {
        guard !sort.isEmpty else { return messages }
        // Stable: messages equal on every key keep the order they were sent in.
        return messages.enumerated().sorted { left, right in
            for (field, ascending) in sort {
                let result: ComparisonResult
                switch field {
                case "created_at": result = left.element.createdAt.order(against: right.element.createdAt)
                case "updated_at": result = left.element.updatedAt.order(against: right.element.updatedAt)
                case "id": result = left.element.id.order(against: right.element.id)
                default: result = .orderedSame
                }
                if result != .orderedSame { return (result == .orderedAscending) == ascending }
            }
            return left.offset < right.offset
        }.map(\.element)
    }
}
