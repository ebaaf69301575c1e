import GRDB

/// The conditions of a WHERE clause and their arguments, in order, for queries whose filters
/// are optional.
struct SQLConditions: Sendable {
    private var clauses: [String] = []
    /// The arguments of the conditions, in order.
    private(set) var arguments = StatementArguments()

    /// Conditions starting with `clause`.
    init(_ clause: String, _ arguments: StatementArguments = []) { add(clause, arguments) }

    /// Adds `clause`, whose placeholders take `arguments`.
    mutating func add(_ clause: String, _ arguments: StatementArguments = []) {
        clauses.append(clause)
        self.arguments += arguments
    }

    /// Adds `column IN (?, …)` when `values` is given; nothing when it is nil (anything matches).
    mutating func add(_ column: String, in values: Set<String>?) {
        guard let values else { return }
        add("\(column) IN (\(Array(repeating: "?", count: values.count).joined(separator: ", ")))", StatementArguments(values.sorted()))
    }

    /// The conditions, joined by AND.
    var sql: String { clauses.joined(separator: " AND ") }
}
