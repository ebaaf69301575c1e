import Foundation

/// Parses JSON into ``RawJSON`` trees.
///
/// Strict (RFC 8259) and never trapping: syntax errors, strings that are not UTF-8, truncation
/// and excessive nesting throw a ``JSONError`` with the byte offset. Numbers keep their text,
/// so huge numbers parse.
public struct JSONParser: Sendable {
    /// Arrays and objects may nest this deep by default; deeper input is refused.
    public static let defaultMaximumDepth = 256

    /// The deepest nesting accepted.
    public var maximumDepth: Int

    /// A parser.
    public init(maximumDepth: Int = JSONParser.defaultMaximumDepth) {
        self.maximumDepth = maximumDepth
    }

    /// Parses one JSON document; only whitespace may follow it.
    public func parse(_ data: Data) throws(JSONError) -> RawJSON {
        try JSONReader.read(data, maximumDepth: maximumDepth) { reader throws(JSONError) in try reader.rawJSON(0) }
    }

    /// Parses one JSON document from bytes.
    public func parse(_ bytes: [UInt8]) throws(JSONError) -> RawJSON {
        try parse(Data(bytes))
    }

    /// Parses one JSON document from a string.
    public func parse(_ text: String) throws(JSONError) -> RawJSON {
        try parse(Data(text.utf8))
    }
}
