import ChatModels
import Foundation
import GRDB

/// The subset of Stream's channel filters the dev server understands: `cid`, `id`, `type`
/// (equality, `$eq`, `$in`), `members` (`$in`, `$eq`), `hidden` (true or false, at the top
/// level) and `$and`. Anything else is refused with a clear error rather than silently ignored.
struct ChannelFilter: Sendable {
    private indirect enum Condition: Sendable {
        case field(String, Set<String>)
        case members(Set<String>)
        case all([Condition])
    }

    private let condition: Condition
    /// `hidden: true` lists only the channels the querying user hid; otherwise they are left out.
    private let listsHidden: Bool

    init(_ filter: JSONObject, operation: String) throws {
        var rest = filter
        if let hidden = rest["hidden"] {
            guard let flag = hidden.boolValue ?? hidden["$eq"]?.boolValue else {
                throw APIError.input(operation, "filter on hidden must be true or false")
            }
            listsHidden = flag
            rest["hidden"] = nil
        } else {
            listsHidden = false
        }
        condition = try ChannelFilter.parse(rest, operation: operation)
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
    /// channels with a user token. For a querying `viewer` (the token's user, or the one a
    /// server query names), the channels it hid are left out, or with `hidden: true` are the
    /// only ones listed.
    func channels(visibleTo principal: Principal, viewer: String?, _ db: Database) throws -> [StoredChannel] {
        var matching = try ChannelsTable.all(db).filter { channel in try matches(channel, db) }
        if let userId = principal.userId {
            let visible = Set(try ChannelsTable.channelIds(ofMember: userId, db))
            matching = matching.filter { visible.contains($0.cid) }
        }
        guard let viewer else { return listsHidden ? [] : matching }
        let hidden = try ChannelsTable.hiddenChannelIds(of: viewer, db)
        return matching.filter { hidden.contains($0.cid) == listsHidden }
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
