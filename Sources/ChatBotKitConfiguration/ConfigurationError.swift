import ChatBotKit

/// A problem in `bots.yaml`, with where it is: file, line and column.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String
        /// A code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The file is not valid YAML.
        public static let syntax = Code(rawValue: "config.syntax")
        /// A key that is not part of the schema.
        public static let unknownKey = Code(rawValue: "config.unknown_key")
        /// A value of the wrong type (a list where a string belongs, ...).
        public static let wrongType = Code(rawValue: "config.wrong_type")
        /// A value of the right type that cannot be used.
        public static let badValue = Code(rawValue: "config.bad_value")
        /// A required key is missing.
        public static let missingKey = Code(rawValue: "config.missing_key")
        /// `${VAR}` names an environment variable that is not set and has no default.
        public static let missingVariable = Code(rawValue: "config.missing_variable")
        /// The file cannot be read.
        public static let unreadable = Code(rawValue: "config.unreadable")
        /// The code's name.
        public var description: String { rawValue }
    }

    /// The kind of problem.
    public let code: Code
    /// What is wrong and how to fix it.
    public let message: String
    /// The file.
    public let file: String
    /// The line, from 1 (0 when unknown).
    public let line: Int
    /// The column, from 1 (0 when unknown).
    public let column: Int

    /// An error.
    public init(code: Code, message: String, file: String, line: Int, column: Int) {
        self.code = code
        self.message = message
        self.file = file
        self.line = line
        self.column = column
    }

    /// `bots.yaml:12:5: error: message [code]`, the form editors jump to; `bots.yaml: error:
    /// message [code]` for a problem with no place in the file (one that cannot be read).
    public var description: String {
        line > 0 ? "\(file):\(line):\(column): error: \(message) [\(code)]" : "\(file): error: \(message) [\(code)]"
    }
}
