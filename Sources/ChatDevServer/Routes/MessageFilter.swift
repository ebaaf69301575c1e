import ChatModels
import Foundation

/// The subset of Stream's message filters (`message_filter_conditions` of `GET /search`) the
/// dev server understands. Fields: `id`, `text`, `type`, `user.id`, `parent_id`,
/// `attachments` (`$exists`), `attachments.type`, `mentioned_users.id`, `pinned`, `created_at`,
/// `updated_at` and custom fields; operators `$eq`, `$ne`, `$in`, `$nin`, `$gt`, `$gte`, `$lt`,
/// `$lte`, `$exists`, and on `text` also `$q` and `$autocomplete`; `$and`, `$or` and `$nor`.
/// Anything else is refused with an error that names it, rather than ignored: a filter that
/// silently matched everything would look like a working search.
struct MessageFilter: Sendable {
    private indirect enum Condition: Sendable {
        case all([Condition])
        case any([Condition])
        case none([Condition])
        case test(Field, Test)
    }

    private enum Field: Sendable, Equatable {
        case id, text, type, userId, parentId, attachments, attachmentType, mentionedUserId, pinned, createdAt, updatedAt
        case custom(String)

        /// Whether the field holds dates, so that operands must be RFC 3339 dates.
        var isDate: Bool { self == .createdAt || self == .updatedAt }
    }

    private enum Test: Sendable {
        case equal(RawJSON)
        case notEqual(RawJSON)
        case among([RawJSON])
        case notAmong([RawJSON])
        case order(Comparison, RawJSON)
        case exists(Bool)
        case words([String], lastIsPrefix: Bool)
    }

    private enum Comparison: Sendable {
        case greater, greaterOrEqual, less, lessOrEqual
    }

    private static let fields: [String: Field] = [
        "id": .id, "text": .text, "type": .type, "user.id": .userId, "parent_id": .parentId, "attachments": .attachments,
        "attachments.type": .attachmentType, "mentioned_users.id": .mentionedUserId, "pinned": .pinned, "created_at": .createdAt,
        "updated_at": .updatedAt,
    ]

    private let condition: Condition

    /// A filter from `message_filter_conditions`.
    init(_ filter: JSONObject, operation: String) throws {
        condition = try MessageFilter.parse(filter, operation: operation)
    }

    /// The filter of a plain-text `query`: every word in the text, in any case.
    init(query: String, operation: String) throws {
        let words = MessageFilter.words(query)
        guard !words.isEmpty else { throw APIError.input(operation, "query must contain at least one word") }
        condition = .test(.text, .words(words, lastIsPrefix: false))
    }

    func matches(_ message: StoredMessage) -> Bool {
        MessageFilter.evaluate(condition, message)
    }

    // MARK: Parsing

    private static func parse(_ filter: JSONObject, operation: String) throws -> Condition {
        var conditions: [Condition] = []
        for (key, value) in filter {
            switch key {
            case "$and", "$or", "$nor":
                let parsed = try FilterConditions.subfilters(value, of: key, operation: operation).map { try parse($0, operation: operation) }
                conditions.append(key == "$and" ? .all(parsed) : key == "$or" ? .any(parsed) : .none(parsed))
            default:
                let field = try field(key, operation: operation)
                conditions.append(contentsOf: try tests(value, field: field, key: key, operation: operation).map { .test(field, $0) })
            }
        }
        return .all(conditions)
    }

    private static func field(_ key: String, operation: String) throws -> Field {
        if let field = fields[key] { return field }
        guard !key.hasPrefix("$") else {
            throw APIError.input(operation, "\(key) is not a filter operator the dev server supports; use $and, $or or $nor")
        }
        guard !renderedMessageKeys.contains(key), !key.contains(".") else {
            throw APIError.input(
                operation,
                "filter field \"\(key)\" is not supported by the dev server; use \(fields.keys.sorted().joined(separator: ", ")) or a custom field")
        }
        return .custom(key)
    }

    /// The tests of one field: a bare value is `$eq`; an object may hold several operators,
    /// which must all pass.
    private static func tests(_ value: RawJSON, field: Field, key: String, operation: String) throws -> [Test] {
        guard case .object(let operators) = value, let first = operators.members.first?.0, first.hasPrefix("$") else {
            return [try test("$eq", value, field: field, key: key, operation: operation)]
        }
        return try operators.members.map { name, operand in try test(name, operand, field: field, key: key, operation: operation) }
    }

    private static func test(_ name: String, _ operand: RawJSON, field: Field, key: String, operation: String) throws -> Test {
        // Dates are compared as numbers (seconds since 1970) on both sides.
        func scalar(_ value: RawJSON = operand) throws -> RawJSON {
            guard field.isDate else { return value }
            guard let text = value.stringValue, let date = RFC3339.date(from: text) else {
                throw APIError.input(operation, "\(key) \(name) needs an RFC 3339 date such as \"2026-11-24T09:00:00Z\", not \(value)")
            }
            return MessageFilter.number(date)
        }
        func list() throws -> [RawJSON] {
            guard let values = operand.arrayValue else { throw APIError.input(operation, "\(key) \(name) needs an array of values") }
            return try values.map { try scalar($0) }
        }
        if field == .attachments, name != "$exists" {
            throw APIError.input(operation, "attachments can only be filtered with $exists; use attachments.type for their types")
        }
        switch name {
        case "$eq": return .equal(try scalar())
        case "$ne": return .notEqual(try scalar())
        case "$in": return .among(try list())
        case "$nin": return .notAmong(try list())
        case "$gt": return .order(.greater, try scalar())
        case "$gte": return .order(.greaterOrEqual, try scalar())
        case "$lt": return .order(.less, try scalar())
        case "$lte": return .order(.lessOrEqual, try scalar())
        case "$exists":
            guard let flag = operand.boolValue else { throw APIError.input(operation, "\(key) $exists needs true or false") }
            return .exists(flag)
        case "$q", "$autocomplete":
            guard field == .text else { throw APIError.input(operation, "\(name) can only be used on text, not on \(key)") }
            let wanted = operand.stringValue.map(words) ?? []
            guard !wanted.isEmpty else { throw APIError.input(operation, "text \(name) needs a string with at least one word") }
            return .words(wanted, lastIsPrefix: name == "$autocomplete")
        default:
            throw APIError.input(
                operation,
                "operator \(name) on \(key) is not supported by the dev server; use $eq, $ne, $in, $nin, $gt, $gte, $lt, $lte, $exists, "
                    + "or $q and $autocomplete on text")
        }
    }

    /// The lowercased words of `text`: runs of letters and digits.
    static func words(_ text: String) -> [String] {
        text.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init)
    }

    // MARK: Evaluation

    private static func evaluate(_ condition: Condition, _ message: StoredMessage) -> Bool {
        switch condition {
        case .all(let parts): parts.allSatisfy { evaluate($0, message) }
        case .any(let parts): parts.contains { evaluate($0, message) }
        case .none(let parts): !parts.contains { evaluate($0, message) }
        case .test(let field, let test): passes(test, values(of: field, in: message))
        }
    }

    /// The values of `field` in `message`: none when absent, several for the fields of lists
    /// (a message matches when any of its attachments' types does).
    private static func values(of field: Field, in message: StoredMessage) -> [RawJSON] {
        let data = message.data
        switch field {
        case .id: return [.string(message.id)]
        case .text: return [.string(data["text"]?.stringValue ?? "")]
        case .type: return [.string(message.type)]
        case .userId: return [.string(message.userId)]
        case .parentId: return message.parentId.map { [.string($0)] } ?? []
        case .attachments: return data["attachments"]?.arrayValue ?? []
        case .attachmentType: return (data["attachments"]?.arrayValue ?? []).compactMap { $0["type"] }
        case .mentionedUserId:
            return (data["mentioned_users"]?.arrayValue ?? []).compactMap { ($0.stringValue ?? $0["id"]?.stringValue).map(RawJSON.string) }
        case .pinned: return [data["pinned"] ?? false]
        case .createdAt: return [number(message.createdAt)]
        case .updatedAt: return [number(message.updatedAt)]
        case .custom(let key): return data[key].map { [$0] } ?? []
        }
    }

    private static func passes(_ test: Test, _ values: [RawJSON]) -> Bool {
        switch test {
        case .equal(let operand): values.contains(operand)
        case .notEqual(let operand): !values.contains(operand)
        case .among(let operands): values.contains { operands.contains($0) }
        case .notAmong(let operands): !values.contains { operands.contains($0) }
        case .order(let comparison, let operand):
            values.contains { value in
                guard let order = compare(value, operand) else { return false }
                switch comparison {
                case .greater: return order == .orderedDescending
                case .greaterOrEqual: return order != .orderedAscending
                case .less: return order == .orderedAscending
                case .lessOrEqual: return order != .orderedDescending
                }
            }
        case .exists(let flag): values.isEmpty != flag
        case .words(let wanted, let lastIsPrefix):
            values.contains { value in
                let present = words(value.stringValue ?? "")
                return wanted.enumerated().allSatisfy { position, word in
                    position == wanted.count - 1 && lastIsPrefix ? present.contains { $0.hasPrefix(word) } : present.contains(word)
                }
            }
        }
    }

    /// A date as the number the filter compares.
    private static func number(_ date: Date) -> RawJSON { .number(JSONNumber(date.timeIntervalSince1970)) }

    /// How `value` orders against `operand`: numbers (and dates) by value, strings by their
    /// characters; nil for values of different kinds, which match no comparison.
    private static func compare(_ value: RawJSON, _ operand: RawJSON) -> ComparisonResult? {
        switch (value, operand) {
        case (.number(let left), .number(let right)):
            guard let left = left.double, let right = right.double else { return nil }
            return left.order(against: right)
        case (.string(let left), .string(let right)): return left.order(against: right)
        default: return nil
        }
    }
}
