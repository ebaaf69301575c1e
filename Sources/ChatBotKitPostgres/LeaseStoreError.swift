/// Why the lease store cannot be used.
public struct LeaseStoreError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The connection string cannot be read.
        public static let badConnectionString = Code(name: "bad_connection_string")
        /// The database did not answer in time.
        public static let timedOut = Code(name: "timed_out")
        /// The database refused a statement.
        public static let queryFailed = Code(name: "query_failed")

        /// The code's name.
        public let name: String
        /// The code's name.
        public var description: String { name }
    }

    /// What kind of failure.
    public let code: Code
    /// What happened, and what to do about it.
    public let message: String

    /// A failure of kind `code`.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
