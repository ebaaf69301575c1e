import Foundation

/// Decodes `Decodable` types (attachment payloads, your own types) from JSON.
///
/// Reads straight from an index of the bytes: no intermediate tree and no strings for keys.
/// Numbers must fit the requested type and are never coerced from strings; `Date` is read from
/// an RFC 3339 string (fractional seconds optional) or Unix seconds, `URL` from a string.
/// Failures are the standard `DecodingError`s with the full coding path.
public struct RawJSONDecoder: Sendable {
    /// The deepest nesting accepted.
    public var maximumDepth = JSONParser.defaultMaximumDepth

    /// A decoder.
    public init() {}

    /// Decodes a value of `type` from JSON bytes.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        // The reading closure returns nothing, so `read` is specialized once for Void instead
        // of being instantiated for every `T` at run time (a generic metadata lookup per call).
        var decoded: T?
        var failure: (any Error)?
        do {
            try JSONReader.read(data, maximumDepth: maximumDepth) { reader throws(JSONError) in
                do {
                    decoded = try IndexDecoder.decode(type, reader, 0, [])
                } catch {
                    failure = error
                }
            }
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: error.description, underlyingError: error))
        }
        if let failure { throw failure }
        return decoded!
    }

    /// Decodes a value of `type` from a JSON tree.
    public func decode<T: Decodable>(_ type: T.Type, from json: RawJSON) throws -> T {
        try decode(type, from: JSONWriter.data(json))
    }
}

/// A coding key for dynamic object members and array positions.
public struct AnyCodingKey: CodingKey, Hashable, Sendable {
    /// The key's text.
    public let stringValue: String
    /// The array index, for unkeyed positions.
    public let intValue: Int?
    /// A key from a string.
    public init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }
    /// A key from an array index.
    public init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
    /// A key from a string.
    public init(_ string: String) { self.init(stringValue: string) }
}

final class IndexDecoder: Decoder {
    let reader: JSONReader
    let node: Int
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(reader: JSONReader, node: Int, codingPath: [any CodingKey]) {
        self.reader = reader
        self.node = node
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard reader.kind(node) == .object else {
            throw IndexDecoder.mismatch([String: RawJSON].self, reader, node, expected: "an object", codingPath)
        }
        return KeyedDecodingContainer(KeyedIndexContainer<Key>(reader: reader, object: node, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard reader.kind(node) == .array else {
            throw IndexDecoder.mismatch([RawJSON].self, reader, node, expected: "an array", codingPath)
        }
        return UnkeyedIndexContainer(reader: reader, array: node, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleIndexContainer(reader: reader, node: node, codingPath: codingPath)
    }

    /// Decodes `type` at `node`, handling the types JSON has no native form for.
    static func decode<T: Decodable>(_ type: T.Type, _ reader: JSONReader, _ node: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> T {
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
        return try T(from: IndexDecoder(reader: reader, node: node, codingPath: codingPath()))
    }

    /// `value` as `T`, which the caller has checked is its type: a reinterpretation instead of
    /// a dynamic cast, which unspecialized generic code would otherwise pay on every field.
    @inline(__always)
    private static func same<T, Value>(_ value: Value) -> T {
        precondition(T.self == Value.self)
        return unsafeBitCast(value, to: T.self)
    }

    static func rawJSON(_ reader: JSONReader, _ node: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> RawJSON {
        do {
            return try reader.rawJSON(node)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath(), debugDescription: error.message, underlyingError: error))
        }
    }

    static func string(_ reader: JSONReader, _ node: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> String {
        guard reader.kind(node) == .string else { throw mismatch(String.self, reader, node, expected: "a string", codingPath()) }
        do {
            return try reader.string(node)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath(), debugDescription: error.message, underlyingError: error))
        }
    }

    static func bool(_ reader: JSONReader, _ node: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> Bool {
        guard reader.kind(node) == .bool else { throw mismatch(Bool.self, reader, node, expected: "a boolean", codingPath()) }
        return reader.nodes[node].flag
    }

    static func double(_ reader: JSONReader, _ node: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws -> Double {
        guard reader.kind(node) == .number else { throw mismatch(Double.self, reader, node, expected: "a number", codingPath()) }
        guard let value = reader.double(node) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath(), debugDescription: "number \(reader.numberLiteral(node)) is out of range for Double"))
        }
        return value
    }

    static func integer<I: FixedWidthInteger>(_ type: I.Type, _ reader: JSONReader, _ node: Int, _ codingPath: @autoclosure () -> [any CodingKey]) throws
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

    static func mismatch(_ type: Any.Type, _ reader: JSONReader, _ node: Int, expected: String, _ codingPath: @autoclosure () -> [any CodingKey])
        -> DecodingError
    {
        let found = (try? reader.rawJSON(node)).map { "\($0.kindDescription) \($0.shortDescription)" } ?? "an invalid value"
        return DecodingError.typeMismatch(type, .init(codingPath: codingPath(), debugDescription: "expected \(expected), found \(found)"))
    }
}

private struct KeyedIndexContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let reader: JSONReader
    let object: Int
    let codingPath: [any CodingKey]

    var allKeys: [Key] {
        reader.members(object).compactMap { member in (try? reader.string(member.key)).flatMap { Key(stringValue: $0) } }
    }

    func find(_ key: Key) -> Int? { reader.member(object, key.stringValue) }

    func contains(_ key: Key) -> Bool { find(key) != nil }

    func member(_ key: Key) throws -> Int {
        guard let node = find(key) else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "required field \"\(key.stringValue)\" is missing"))
        }
        return node
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        find(key).map(reader.isNull) ?? true
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try IndexDecoder.decode(type, reader, member(key), codingPath + [key])
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let node = present(key) else { return nil }
        return try IndexDecoder.decode(type, reader, node, codingPath + [key])
    }

    // One lookup each instead of the three (`contains`, `decodeNil`, `decode`) of the default,
    // and no generic dispatch: these are most of the fields of a payload.
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let node = present(key) else { return nil }
        return try IndexDecoder.bool(reader, node, codingPath + [key])
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let node = present(key) else { return nil }
        return try IndexDecoder.string(reader, node, codingPath + [key])
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let node = present(key) else { return nil }
        return try IndexDecoder.double(reader, node, codingPath + [key])
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        guard let node = present(key) else { return nil }
        return Float(try IndexDecoder.double(reader, node, codingPath + [key]))
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try presentInteger(type, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try presentInteger(type, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try presentInteger(type, key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try presentInteger(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try presentInteger(type, key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try presentInteger(type, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try presentInteger(type, key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try presentInteger(type, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try presentInteger(type, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try presentInteger(type, key) }

    /// The value node of `key`, nil when it is absent or `null`.
    @inline(__always)
    func present(_ key: Key) -> Int? {
        guard let node = find(key), !reader.isNull(node) else { return nil }
        return node
    }

    @inline(__always)
    func presentInteger<I: FixedWidthInteger>(_ type: I.Type, _ key: Key) throws -> I? {
        guard let node = present(key) else { return nil }
        return try IndexDecoder.integer(type, reader, node, codingPath + [key])
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try IndexDecoder.bool(reader, member(key), codingPath + [key]) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try IndexDecoder.string(reader, member(key), codingPath + [key])
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try IndexDecoder.double(reader, member(key), codingPath + [key])
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        Float(try IndexDecoder.double(reader, member(key), codingPath + [key]))
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

    func integer<I: FixedWidthInteger>(_ type: I.Type, _ key: Key) throws -> I {
        try IndexDecoder.integer(type, reader, member(key), codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try IndexDecoder(reader: reader, node: member(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try IndexDecoder(reader: reader, node: member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        IndexDecoder(reader: reader, node: try member(Key(stringValue: "super")!), codingPath: codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        IndexDecoder(reader: reader, node: try member(key), codingPath: codingPath + [key])
    }
}

private struct UnkeyedIndexContainer: UnkeyedDecodingContainer {
    let reader: JSONReader
    let codingPath: [any CodingKey]
    let end: Int
    let total: Int
    var cursor: Int
    var currentIndex = 0

    init(reader: JSONReader, array: Int, codingPath: [any CodingKey]) {
        self.reader = reader
        self.codingPath = codingPath
        self.cursor = array + 1
        self.end = reader.next(array)
        self.total = reader.childCount(array)
    }

    var count: Int? { total }
    var isAtEnd: Bool { cursor >= end }

    mutating func advance() throws -> (Int, [any CodingKey]) {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                RawJSON.self, .init(codingPath: codingPath, debugDescription: "the array has no element \(currentIndex)"))
        }
        let node = cursor
        let path = codingPath + [AnyCodingKey(intValue: currentIndex)]
        cursor = reader.next(node)
        currentIndex += 1
        return (node, path)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, reader.isNull(cursor) else { return false }
        _ = try advance()
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (node, path) = try advance()
        return try IndexDecoder.decode(type, reader, node, path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (node, path) = try advance()
        return try IndexDecoder(reader: reader, node: node, codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (node, path) = try advance()
        return try IndexDecoder(reader: reader, node: node, codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (node, path) = try advance()
        return IndexDecoder(reader: reader, node: node, codingPath: path)
    }
}

private struct SingleIndexContainer: SingleValueDecodingContainer {
    let reader: JSONReader
    let node: Int
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { reader.isNull(node) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try IndexDecoder.decode(type, reader, node, codingPath) }
    func decode(_ type: Bool.Type) throws -> Bool { try IndexDecoder.bool(reader, node, codingPath) }
    func decode(_ type: String.Type) throws -> String { try IndexDecoder.string(reader, node, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try IndexDecoder.double(reader, node, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { Float(try IndexDecoder.double(reader, node, codingPath)) }
    func decode(_ type: Int.Type) throws -> Int { try IndexDecoder.integer(type, reader, node, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try IndexDecoder.integer(type, reader, node, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try IndexDecoder.integer(type, reader, node, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try IndexDecoder.integer(type, reader, node, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try IndexDecoder.integer(type, reader, node, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try IndexDecoder.integer(type, reader, node, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try IndexDecoder.integer(type, reader, node, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try IndexDecoder.integer(type, reader, node, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try IndexDecoder.integer(type, reader, node, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try IndexDecoder.integer(type, reader, node, codingPath) }
}
