import Foundation

/// The decoder ``RawJSONDecoder`` hands to `init(from:)`.
///
/// A struct of three words, which an `any Decoder` holds without allocating (a class cost one
/// allocation per value decoded). It points at the reader of the document being decoded, which
/// lives as long as the decoding does; a type that kept the decoder after its `init(from:)`
/// returned would find the reader gone, as it would the document's bytes before.
@usableFromInline
struct IndexDecoder: Decoder {
    let readerPointer: UnsafePointer<JSONReader>
    package let node: Int
    @usableFromInline package let codingPath: [any CodingKey]
    @usableFromInline package var userInfo: [CodingUserInfoKey: Any] { [:] }
    package var reader: JSONReader { readerPointer.pointee }

    /// The value at this decoder's node as `T`: straight through `T(from:)`, specialized in
    /// the caller, unless `T` is one of the types JSON has no native form for.
    @inlinable
    func decodeRoot<T: Decodable>(_ type: T.Type) throws -> T {
        if IndexDecoder.readsItself(T.self) { return try T(from: self) }
        return try decodeSpecially(type)
    }

    /// Whether `type` decodes through its own `init(from:)` (not one of the types
    /// ``decode(_:_:_:_:)`` reads itself).
    @usableFromInline
    static func readsItself(_ type: Any.Type) -> Bool {
        !(type == String.self || type == Int.self || type == Bool.self || type == Double.self || type == Int64.self
            || type == URL.self || type == Date.self || type == RawJSON.self || type == JSONObject.self || type == Data.self)
    }

    /// `T` at this decoder's node through the generic path.
    @usableFromInline
    func decodeSpecially<T: Decodable>(_ type: T.Type) throws -> T {
        try IndexDecoder.decode(type, readerPointer, node, codingPath)
    }

    package init(reader: UnsafePointer<JSONReader>, node: Int, codingPath: [any CodingKey]) {
        self.readerPointer = reader
        self.node = node
        self.codingPath = codingPath
    }

    @usableFromInline
    package func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard reader.kind(node) == .object else {
            throw IndexDecoder.mismatch([String: RawJSON].self, reader, node, expected: "an object", codingPath)
        }
        return KeyedDecodingContainer(KeyedIndexContainer<Key>(reader: readerPointer, object: node, codingPath: codingPath))
    }

    @usableFromInline
    package func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard reader.kind(node) == .array else {
            throw IndexDecoder.mismatch([RawJSON].self, reader, node, expected: "an array", codingPath)
        }
        return UnkeyedIndexContainer(reader: readerPointer, array: node, codingPath: codingPath)
    }

    @usableFromInline
    package func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleIndexContainer(readerPointer: readerPointer, node: node, codingPath: codingPath)
    }

    /// Decodes `type` at `node`, handling the types JSON has no native form for.
    package static func decode<T: Decodable>(_ type: T.Type, _ readerPointer: UnsafePointer<JSONReader>, _ node: Int, _ codingPath: @autoclosure () -> [any CodingKey])
        throws -> T
    {
        let reader = readerPointer.pointee
        if T.self == String.self { return try same(string(reader, node, codingPath())) }
        if T.self == Int.self { return try same(integer(Int.self, reader, node, codingPath())) }
        if T.self == Bool.self { return try same(bool(reader, node, codingPath())) }
        if T.self == Double.self { return try same(double(reader, node, codingPath())) }
        if T.self == Int64.self { return try same(integer(Int64.self, reader, node, codingPath())) }
        if T.self == URL.self {
            let text = try string(reader, node, codingPath())
            // Parsing strictly first is about a tenth faster; only a string it refuses (one
            // with characters to percent-encode) is parsed again as `URL(string:)` parses it.
            guard !text.isEmpty, let url = URL(string: text, encodingInvalidCharacters: false) ?? URL(string: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath(), debugDescription: "invalid URL \"\(text)\""))
            }
            return same(url)
        }
        if T.self == Date.self {
            switch reader.kind(node) {
            case .string:
                guard let date = reader.date(node) else {
                    throw DecodingError.dataCorrupted(
                        .init(codingPath: codingPath(), debugDescription: "invalid RFC 3339 date \"\(try string(reader, node, codingPath()))\""))
                }
                return same(date)
            case .number:
                return same(Date(timeIntervalSince1970: try double(reader, node, codingPath())))
            default:
                throw mismatch(Date.self, reader, node, expected: "a date string", codingPath())
            }
        }
        if T.self == RawJSON.self { return try same(rawJSON(reader, node, codingPath())) }
        if T.self == JSONObject.self {
            guard case .object(let object) = try rawJSON(reader, node, codingPath()) else {
                throw mismatch(JSONObject.self, reader, node, expected: "an object", codingPath())
            }
            return same(object)
        }
        if T.self == Data.self {
            guard let data = Data(base64Encoded: try string(reader, node, codingPath())) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath(), debugDescription: "invalid base64 data"))
            }
            return same(data)
        }
        return try T(from: IndexDecoder(reader: readerPointer, node: node, codingPath: codingPath()))
    }

    /// `value` as `T`, which the caller has checked is its type: a reinterpretation instead of
    /// a dynamic cast, which unspecialized generic code would otherwise pay on every field.
    @inline(__always)
    private static func same<T, Value>(_ value: Value) -> T {
        precondition(T.self == Value.self)
        return unsafeBitCast(value, to: T.self)
    }

    package static func rawJSON(_ reader: JSONReader, _ node: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> RawJSON {
        do {
            return try reader.rawJSON(node)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath(), debugDescription: error.message, underlyingError: error))
        }
    }

    package static func string(_ reader: JSONReader, _ node: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> String {
        guard reader.kind(node) == .string else { throw mismatch(String.self, reader, node, expected: "a string", codingPath()) }
        do {
            return try reader.string(node)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath(), debugDescription: error.message, underlyingError: error))
        }
    }

    package static func bool(_ reader: JSONReader, _ node: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> Bool {
        guard reader.kind(node) == .bool else { throw mismatch(Bool.self, reader, node, expected: "a boolean", codingPath()) }
        return reader.nodes[node].flag
    }

    package static func double(_ reader: JSONReader, _ node: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> Double {
        guard reader.kind(node) == .number else { throw mismatch(Double.self, reader, node, expected: "a number", codingPath()) }
        guard let value = reader.double(node) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath(), debugDescription: "number \(reader.numberLiteral(node)) is out of range for Double"))
        }
        return value
    }

    package static func integer<I: FixedWidthInteger>(_ type: I.Type, _ reader: JSONReader, _ node: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws
        -> I
    {
        guard reader.kind(node) == .number else { throw mismatch(I.self, reader, node, expected: "an integer", codingPath()) }
        guard let value = reader.integer(node, as: I.self) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: codingPath(),
                    debugDescription: "number \(reader.numberLiteral(node)) is not an integer that fits in \(I.self)"))
        }
        return value
    }

    package static func mismatch(_ type: Any.Type, _ reader: JSONReader, _ node: Int, expected: String, _ codingPath: @autoclosure () -> [any CodingKey])
        -> DecodingError
    {
        let found = (try? reader.rawJSON(node)).map { "\($0.kindDescription) \($0.shortDescription)" } ?? "an invalid value"
        return DecodingError.typeMismatch(type, .init(codingPath: codingPath(), debugDescription: "expected \(expected), found \(found)"))
    }
}
