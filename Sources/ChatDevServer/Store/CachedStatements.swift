import GRDB

// The store runs the same few statements over and over (a page of 30 channel states runs seven
// each), and compiling one cost more than running it: about a fifth of a Query Channels call
// went to SQLite's parser and GRDB's authorizer. These fetch through the connection's cache of
// compiled statements instead. Statements built with a varying number of placeholders are
// cached once per count, which keeps the cache small.

extension Row {
    /// The rows of `sql`, through the connection's cache of compiled statements.
    static func fetchAll(_ db: Database, cached sql: String, arguments: StatementArguments = StatementArguments()) throws -> [Row] {
        try fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
    }

    /// The first row of `sql`, through the connection's cache of compiled statements.
    static func fetchOne(_ db: Database, cached sql: String, arguments: StatementArguments = StatementArguments()) throws -> Row? {
        try fetchOne(db.cachedStatement(sql: sql), arguments: arguments)
    }
}

extension DatabaseValueConvertible where Self: StatementColumnConvertible {
    /// The values of `sql`'s first column, through the connection's cache of compiled statements.
    static func fetchAll(_ db: Database, cached sql: String, arguments: StatementArguments = StatementArguments()) throws -> [Self] {
        try fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
    }

    /// The first value of `sql`, through the connection's cache of compiled statements.
    static func fetchOne(_ db: Database, cached sql: String, arguments: StatementArguments = StatementArguments()) throws -> Self? {
        try fetchOne(db.cachedStatement(sql: sql), arguments: arguments)
    }
}
