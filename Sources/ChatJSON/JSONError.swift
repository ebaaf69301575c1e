/// Why a piece of JSON could not be read, and where.
///
/// `path` names the field in dotted form (`message.attachments[2].workout-energy-cal`);
/// `offset` is the byte position for syntax errors.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable, machine-readable error kind.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The text is not JSON.
        public static let syntax = Code(rawValue: "json.syntax")
        /// The text ends before the JSON value does.
        public static let unexpectedEnd = Code(rawValue: "json.unexpected_end")
        /// A string holds bytes that are not UTF-8 (RFC 8259 requires it).
        public static let invalidUTF8 = Code(rawValue: "json.invalid_utf8")
        /// Arrays and objects nest deeper than the parser allows.
        public static let nestingTooDeep = Code(rawValue: "json.nesting_too_deep")
        /// A field has the wrong JSON type.
        public static let typeMismatch = Code(rawValue: "json.type_mismatch")
        /// A required field is absent.
        public static let missingField = Code(rawValue: "json.missing_field")
        /// A field has the right type but a value that cannot be used.
        public static let invalidValue = Code(rawValue: "json.invalid_value")
        /// The code's name.
        public var description: String { rawValue }
    }

    /// The error kind.
    public let code: Code
    /// What went wrong, in words.
    public let message: String
    /// Where: the steps from the document root to the offending field.
    public private(set) var location: JSONPath
    /// The byte offset in the input, for syntax errors.
    public let offset: Int?

    /// The dotted path of the offending field; empty for the document itself.
    public var path: String { location.description }

    /// Creates an error.
    public init(code: Code, message: String, path: JSONPath = .root, offset: Int? = nil) {
        self.code = code
        self.message = message
        self.location = path
        self.offset = offset
    }

    /// A one-line description with code, path and message.
    public var description: String {
        var text = "[\(code)] "
        if !path.isEmpty { text += "\(path): " }
        text += message
        if let offset { text += " (at byte \(offset))" }
        return text
    }

    /// The same error seen from the enclosing object: `key` is put in front of the path.
    @_spi(JSONEngine) public func prefixed(_ key: String) -> JSONError {
        var copy = self
        copy.location = JSONPath(components: [.key(key)] + location.components)
        return copy
    }

    /// The same error seen from the enclosing array.
    @_spi(JSONEngine) public func prefixed(index: Int) -> JSONError {
        var copy = self
        copy.location = JSONPath(components: [.index(index)] + location.components)
        return copy
    }

    package static func typeMismatch(expected: String, found: String) -> JSONError {
        JSONError(code: .typeMismatch, message: "expected \(expected), found \(found)")
    }

    package static func missing(_ key: String) -> JSONError {
        JSONError(code: .missingField, message: "required field is missing", path: JSONPath(components: [.key(key)]))
    }

    @_spi(JSONEngine) public static func invalid(_ message: String) -> JSONError {
        JSONError(code: .invalidValue, message: message)
    }
}

extension RawJSON {
    /// A short rendering of the value for error messages (long values are cut).
    var shortDescription: String {
        let text = JSONWriter.string(self)
        return text.count > 40 ? String(text.prefix(37)) + "..." : text
    }
}
