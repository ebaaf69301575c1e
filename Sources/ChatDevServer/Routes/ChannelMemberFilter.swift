import ChatModels
import Foundation

/// The subset of Stream's member filters (`filter_conditions` of `GET /members`) the dev
/// server understands: `id` / `user_id` and `channel_role` (a string, `$eq`, `$in`), `banned`
/// (a boolean), `name` (`$eq`, `$autocomplete`: a prefix of a word of the user's name, any
/// case) and `$and`. Anything else is refused with an error that names it.
struct ChannelMemberFilter: Sendable {
    private indirect enum Condition: Sendable {
        case userIds(Set<String>)
        case roles(Set<String>)
        case banned(Bool)
        case name(String, prefix: Bool)
        case all([Condition])
    }

    private let condition: Condition

    /// A filter from `filter_conditions`; an empty one matches every member.
    init(_ filter: JSONObject, operation: String) throws {
        condition = try ChannelMemberFilter.parse(filter, operation: operation)
    }

    private static func parse(_ filter: JSONObject, operation: String) throws -> Condition {
        var conditions: [Condition] = []
        for (key, value) in filter {
            switch key {
            case "$and":
                conditions.append(.all(try FilterConditions.subfilters(value, of: key, operation: operation).map { try parse($0, operation: operation) }))
            case "id", "user_id":
                conditions.append(.userIds(try FilterConditions.strings(value, key: key, operation: operation)))
            case "channel_role":
                conditions.append(.roles(try FilterConditions.strings(value, key: key, operation: operation)))
            case "banned":
                guard let flag = value.boolValue else { throw APIError.input(operation, "filter on banned must be true or false") }
                conditions.append(.banned(flag))
            case "name":
                conditions.append(try nameCondition(value, operation: operation))
            default:
                throw APIError.input(
                    operation, "filter field \"\(key)\" is not supported by the dev server; use id, user_id, channel_role, banned or name")
            }
        }
        return .all(conditions)
    }

    private static func nameCondition(_ value: RawJSON, operation: String) throws -> Condition {
        if let text = value.stringValue { return .name(text, prefix: false) }
        if case .object(let object) = value, object.count == 1, let (op, operand) = object.members.first, let text = operand.stringValue {
            switch op {
            case "$eq": return .name(text, prefix: false)
            case "$autocomplete": return .name(text.lowercased(), prefix: true)
            default: break
            }
        }
        throw APIError.input(operation, "filter on name must be a string, {\"$eq\": ...} or {\"$autocomplete\": ...}")
    }

    /// Whether `member`, whose user is `user` (if stored), matches.
    func matches(_ member: StoredMember, user: StoredUser?) -> Bool {
        ChannelMemberFilter.evaluate(condition, member, user)
    }

    private static func evaluate(_ condition: Condition, _ member: StoredMember, _ user: StoredUser?) -> Bool {
        switch condition {
        case .userIds(let ids): return ids.contains(member.userId)
        case .roles(let roles): return roles.contains(member.channelRole)
        case .banned(let flag): return member.banned == flag
        case .name(let text, prefix: false): return user?.data["name"]?.stringValue == text
        case .name(let text, prefix: true):
            let words = (user?.data["name"]?.stringValue ?? "").lowercased().split(whereSeparator: { $0.isWhitespace })
            return words.contains { $0.hasPrefix(text) }
        case .all(let conditions): return conditions.allSatisfy { evaluate($0, member, user) }
        }
    }
}
