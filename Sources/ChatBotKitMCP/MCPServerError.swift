/// Why an MCP server's tools could not be used: it did not start, did not answer, or died.
public struct MCPServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it is.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String
        /// A code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The command could not be started, or exited before it answered.
        public static let startFailed = Code(rawValue: "mcp.start_failed")
        /// The server exited while a call waited for its answer.
        public static let exited = Code(rawValue: "mcp.exited")
        /// The server did not answer in time.
        public static let timedOut = Code(rawValue: "mcp.timed_out")
        /// The code's name.
        public var description: String { rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// What happened, naming the server, with the last of what it printed.
    public let message: String

    /// An error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// `[mcp.exited] message`.
    public var description: String { "[\(code)] \(message)" }
}
