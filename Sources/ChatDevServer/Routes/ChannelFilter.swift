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
    /// only ones listed. One SQL query, in the default order (latest message first).
    func channels(visibleTo principal: Principal, viewer: String?, _ db: Database) throws -> [StoredChannel] {
        try channels(visibleTo: principal, viewer: viewer, orderedBy: nil, offset: 0, limit: nil, db)
    }

    /// A page of ``channels(visibleTo:viewer:_:)`` in `sort` order, in one SQL query when the
    /// sort is on columns (``ChannelSort/sqlOrder``); else sorted here, then cut.
    func channels(
        visibleTo principal: Principal, viewer: String?, sortedBy sort: ChannelSort, offset: Int, limit: Int, _ db: Database
    ) throws -> [StoredChannel] {
        if let order = sort.sqlOrder {
            return try channels(visibleTo: principal, viewer: viewer, orderedBy: order, offset: offset, limit: limit, db)
        }
        let all = try channels(visibleTo: principal, viewer: viewer, db)
        return Array(try sort.sorted(all, db).dropFirst(offset).prefix(limit))
    }

    private func channels(
        visibleTo principal: Principal, viewer: String?, orderedBy order: String?, offset: Int, limit: Int?, _ db: Database
    ) throws -> [StoredChannel] {
        var conditions = SQLConditions("c.deleted_at IS NULL")
        ChannelFilter.add(condition, to: &conditions)
        if let userId = principal.userId {
            conditions.add("c.cid IN (SELECT cid FROM members WHERE user_id = ?)", [userId])
        }
        if let viewer {
            conditions.add("c.cid \(listsHidden ? "" : "NOT ")IN (SELECT cid FROM members WHERE user_id = ? AND hidden = 1)", [viewer])
        } else if listsHidden {
            return []
        }
        var sql = "SELECT c.* FROM channels c WHERE \(conditions.sql) ORDER BY \(order.flatMap { $0.isEmpty ? nil : $0 + ", " } ?? "")"
        sql += "COALESCE(c.last_message_at, c.created_at) DESC, c.rowid"
        var arguments = conditions.arguments
        if let limit {
            sql += " LIMIT ? OFFSET ?"
            arguments += [limit, offset]
        }
        return try Row.fetchAll(db, cached: sql, arguments: arguments).map(ChannelsTable.decode)
    }

    /// Adds `condition` as SQL on the channels' columns and their members.
    private static func add(_ condition: Condition, to conditions: inout SQLConditions) {
        switch condition {
        case .field(let field, let values):
            conditions.add("c.\(field == "cid" ? "cid" : field == "id" ? "id" : "type")", in: values)
        case .members(let userIds):
            let placeholders = Array(repeating: "?", count: userIds.count).joined(separator: ", ")
            conditions.add("c.cid IN (SELECT cid FROM members WHERE user_id IN (\(placeholders)))", StatementArguments(userIds.sorted()))
        case .all(let all):
            for condition in all { add(condition, to: &conditions) }
        }
    }
}
