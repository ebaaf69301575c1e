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
                conditions.append(.all(try FilterConditions.subfilters(value, of: key, operation: operation).map { try parse($0, operation: operation) }))
            case "cid", "id", "type":
                conditions.append(.field(key, try FilterConditions.strings(value, key: key, operation: operation)))
            case "members":
                conditions.append(.members(try FilterConditions.strings(value, key: key, operation: operation)))
            default:
                throw APIError.input(operation, "filter field \"\(key)\" is not supported by the dev server; use cid, id, type or members")
            }
        }
        return .all(conditions)
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
