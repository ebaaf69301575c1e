import ChatModels
import Foundation
import GRDB

/// The subset of Stream's channel filters the dev server understands: `cid`, `id`, `type`
/// (equality, `$eq`, `$in`), `members` (`$in`, `$eq`) and `$and`. Anything else is refused with
/// a clear error rather than silently ignored.
struct ChannelFilter: Sendable {
    private indirect enum Condition: Sendable {
        case field(String, Set<String>)
        case members(Set<String>)
        case all([Condition])
    }

    private let condition: Condition

    init(_ filter: JSONObject, operation: String) throws {
        condition = try ChannelFilter.parse(filter, operation: operation)
    }

    private static func parse(_ filter: JSONObject, operation: String) throws -> Condition {
        var conditions: [Condition] = []
        for (key, value) in filter {
            switch key {
            case "$and":
                guard case .array(let parts) = value else { throw APIError.input(operation, "$and must be an array of filters") }
                conditions.append(.all(try parts.map { part in
                    guard case .object(let object) = part else { throw APIError.input(operation, "$and must be an array of filters") }
                    return try parse(object, operation: operation)
                }))
            case "cid", "id", "type":
                conditions.append(.field(key, try values(value, key: key, operation: operation)))
            case "members":
                conditions.append(.members(try values(value, key: key, operation: operation)))
            default:
                throw APIError.input(operation, "filter field \"\(key)\" is not supported by the dev server; use cid, id, type or members")
            }
        }
        return .all(conditions)
    }

    /// The strings a filter value allows: `"x"`, `{"$eq": "x"}` or `{"$in": ["x", "y"]}`.
    static func values(_ value: RawJSON, key: String, operation: String) throws -> Set<String> {
        if let text = value.stringValue { return [text] }
        if case .object(let object) = value, object.count == 1, let (op, operand) = object.members.first {
            switch (op, operand) {
            case ("$eq", .string(let text)): return [text]
            case ("$in", .array(let elements)): return Set(elements.compactMap(\.stringValue))
            default: break
            }
        }
        throw APIError.input(operation, "filter on \(key) must be a string, {\"$eq\": ...} or {\"$in\": [...]}")
    }

    /// The matching channels `principal` may read: any with a server token, only its user's
    /// channels with a user token.
    func channels(visibleTo principal: Principal, _ db: Database) throws -> [StoredChannel] {
        let matching = try ChannelsTable.all(db).filter { channel in try matches(channel, db) }
        guard let userId = principal.userId else { return matching }
        let visible = Set(try ChannelsTable.channelIds(ofMember: userId, db))
        return matching.filter { visible.contains($0.cid) }
    }

    func matches(_ channel: StoredChannel, _ db: Database) throws -> Bool {
        try ChannelFilter.evaluate(condition, channel, db)
    }

    private static func evaluate(_ condition: Condition, _ channel: StoredChannel, _ db: Database) throws -> Bool {
        switch condition {
        case .field("cid", let values): return values.contains(channel.cid.rawValue)
        case .field("id", let values): return values.contains(channel.cid.id)
        case .field(_, let values): return values.contains(channel.cid.type.rawValue)
        case .members(let userIds):
            return try ChannelsTable.members(db, channel.cid).contains { userIds.contains($0.userId) }
        case .all(let conditions):
            return try conditions.allSatisfy { try evaluate($0, channel, db) }
        }
    }
}
