import ChatModels
import Foundation

/// The filters of `POST /reminders/query`: `channel_cid` and `message_id` (a value, `$eq` or
/// `$in`); `remind_at` and `created_at` with `$eq`, `$gt`, `$gte`, `$lt`, `$lte` and RFC 3339
/// dates, and `remind_at` also `$exists` (false: saved for later) or null (the same). A due
/// list is `{"remind_at": {"$lte": now}}`. Anything else is refused with what is supported.
struct ReminderFilter: Sendable {
    private enum Test: Sendable {
        case among(Set<String>)
        case compare(ComparisonResult, orEqual: Bool, Date)
        case exists(Bool)
    }

    private var tests: [(field: String, test: Test)] = []

    init(_ filter: JSONObject, operation: String) throws {
        for (key, value) in filter {
            switch key {
            case "channel_cid", "message_id":
                tests.append((key, .among(try FilterConditions.strings(value, key: key, operation: operation))))
            case "remind_at", "created_at":
                tests.append(contentsOf: try Self.dateTests(value, key: key, operation: operation).map { (key, $0) })
            default:
                throw APIError.input(
                    operation, "filter.\(key) is not supported by the dev server; filter on channel_cid, message_id, remind_at or created_at")
            }
        }
    }

    func matches(_ reminder: StoredReminder) -> Bool {
        tests.allSatisfy { field, test in
            switch test {
            case .among(let values):
                return values.contains(field == "channel_cid" ? reminder.cid.rawValue : reminder.messageId)
            case .exists(let flag):
                return (reminder.remindAt != nil) == flag
            case .compare(let wanted, let orEqual, let operand):
                guard let date = field == "created_at" ? reminder.createdAt : reminder.remindAt else { return false }
                let order = date.order(against: operand)
                return order == wanted || (orEqual && order == .orderedSame)
            }
        }
    }

    private static func dateTests(_ value: RawJSON, key: String, operation: String) throws -> [Test] {
        if value.isNull, key == "remind_at" { return [.exists(false)] }
        guard case .object(let operators) = value, operators.members.first?.0.hasPrefix("$") == true else {
            return [try dateTest("$eq", value, key: key, operation: operation)]
        }
        return try operators.members.map { try dateTest($0.0, $0.1, key: key, operation: operation) }
    }

    private static func dateTest(_ name: String, _ operand: RawJSON, key: String, operation: String) throws -> Test {
        if name == "$exists", key == "remind_at" {
            guard let flag = operand.boolValue else { throw APIError.input(operation, "remind_at $exists needs true or false") }
            return .exists(flag)
        }
        guard let text = operand.stringValue, let date = RFC3339.date(from: text) else {
            throw APIError.input(operation, "\(key) \(name) needs an RFC 3339 date such as \"2026-11-24T09:00:00Z\", not \(JSONWriter.string(operand))")
        }
        switch name {
        case "$eq": return .compare(.orderedSame, orEqual: true, date)
        case "$gt": return .compare(.orderedDescending, orEqual: false, date)
        case "$gte": return .compare(.orderedDescending, orEqual: true, date)
        case "$lt": return .compare(.orderedAscending, orEqual: false, date)
        case "$lte": return .compare(.orderedAscending, orEqual: true, date)
        default:
            throw APIError.input(
                operation, "operator \(name) on \(key) is not supported by the dev server; use $eq, $gt, $gte, $lt, $lte"
                    + (key == "remind_at" ? " or $exists" : ""))
        }
    }
}
