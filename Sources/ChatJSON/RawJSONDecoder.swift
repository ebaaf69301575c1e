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
    ///
    /// Inlinable, so that it is specialized for the caller's type: as a generic function it
    /// looked up `Optional<T>`'s metadata, copied the value through its witnesses and went
    /// through the generic path for every payload it decoded.
    @inlinable
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        var decoded: T?
        try withRootDecoder(for: data) { decoder in decoded = try decoder.decodeRoot(T.self) }
        return decoded!
    }

    /// Indexes `data` and runs `body` with a decoder on its root. A document that is not JSON
    /// is `DecodingError.dataCorrupted`; what `body` throws is thrown as it is.
    @usableFromInline
    func withRootDecoder(for data: Data, _ body: (IndexDecoder) throws -> Void) throws {
        var failure: (any Error)?
        do {
            try JSONReader.read(data, maximumDepth: maximumDepth) { reader throws(JSONError) in
                withUnsafePointer(to: reader) { reader in
                    do {
                        try body(IndexDecoder(reader: reader, node: 0, codingPath: []))
                    } catch {
                        failure = error
                    }
                }
            }
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: error.description, underlyingError: error))
        }
        if let failure { throw failure }
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

private struct KeyedIndexContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    // Three words, so that the copy Codable's type-erasing box makes for every field read is a
    // copy of three words and one retain.
    let readerPointer: UnsafePointer<JSONReader>
    package let object: Int
    package let codingPath: [any CodingKey]

    package init(reader: UnsafePointer<JSONReader>, object: Int, codingPath: [any CodingKey]) {
        self.readerPointer = reader
        self.object = object
        self.codingPath = codingPath
    }

    package var reader: JSONReader {
        @inline(__always) _read { yield readerPointer.pointee }
    }

    package var allKeys: [Key] {
        reader.members(object).compactMap { member in (try? reader.string(member.key)).flatMap { Key(stringValue: $0) } }
    }

    package func find(_ key: Key) -> Int? {
        var name = key.stringValue
        return name.withUTF8 { reader.member(object, utf8: $0) }
    }

    package func contains(_ key: Key) -> Bool { find(key) != nil }

    package func member(_ key: Key) throws -> Int {
        guard let node = find(key) else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "required field \"\(key.stringValue)\" is missing"))
        }
        return node
    }

    package func decodeNil(forKey key: Key) throws -> Bool {
        find(key).map(reader.isNull) ?? true
    }

    package func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try IndexDecoder.decode(type, readerPointer, member(key), codingPath + [key])
    }

    package func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let node = present(key) else { return nil }
        return try IndexDecoder.decode(type, readerPointer, node, codingPath + [key])
    }

    // One lookup each instead of the three (`contains`, `decodeNil`, `decode`) of the default,
    // and no generic dispatch: these are most of the fields of a payload.
    package func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let node = present(key) else { return nil }
        return try IndexDecoder.bool(reader, node, codingPath + [key])
    }
    package func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let node = present(key) else { return nil }
        return try IndexDecoder.string(reader, node, codingPath + [key])
    }
    package func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let node = present(key) else { return nil }
        return try IndexDecoder.double(reader, node, codingPath + [key])
    }
    package func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        guard let node = present(key) else { return nil }
        return Float(try IndexDecoder.double(reader, node, codingPath + [key]))
    }
    package func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try presentInteger(type, key) }
    package func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try presentInteger(type, key) }
    package func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try presentInteger(type, key) }
    package func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try presentInteger(type, key) }
    package func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try presentInteger(type, key) }
    package func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try presentInteger(type, key) }
    package func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try presentInteger(type, key) }
    package func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try presentInteger(type, key) }
    package func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try presentInteger(type, key) }
    package func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try presentInteger(type, key) }

    /// The value node of `key`, nil when it is absent or `null`.
    @inline(__always)
    package func present(_ key: Key) -> Int? {
        guard let node = find(key), !reader.isNull(node) else { return nil }
        return node
    }

    @inline(__always)
    func presentInteger<I: FixedWidthInteger>(_ type: I.Type, _ key: Key) throws -> I? {
        guard let node = present(key) else { return nil }
        return try IndexDecoder.integer(type, reader, node, codingPath + [key])
    }

    package func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try IndexDecoder.bool(reader, member(key), codingPath + [key]) }
    package func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try IndexDecoder.string(reader, member(key), codingPath + [key])
    }
    package func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try IndexDecoder.double(reader, member(key), codingPath + [key])
    }
    package func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        Float(try IndexDecoder.double(reader, member(key), codingPath + [key]))
    }
    package func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
    package func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    package func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    package func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
    package func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
    package func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    package func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    package func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    package func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    package func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

    package func integer<I: FixedWidthInteger>(_ type: I.Type, _ key: Key) throws -> I {
        try IndexDecoder.integer(type, reader, member(key), codingPath + [key])
    }

    package func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try IndexDecoder(reader: readerPointer, node: member(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    package func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try IndexDecoder(reader: readerPointer, node: member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    package func superDecoder() throws -> any Decoder {
        IndexDecoder(reader: readerPointer, node: try member(Key(stringValue: "super")!), codingPath: codingPath)
    }

    package func superDecoder(forKey key: Key) throws -> any Decoder {
        IndexDecoder(reader: readerPointer, node: try member(key), codingPath: codingPath + [key])
    }
}

private struct UnkeyedIndexContainer: UnkeyedDecodingContainer {
    let readerPointer: UnsafePointer<JSONReader>
    package let codingPath: [any CodingKey]
    package let end: Int
    package let total: Int
    package var cursor: Int
    var currentIndex = 0
    package var reader: JSONReader { readerPointer.pointee }

    package init(reader: UnsafePointer<JSONReader>, array: Int, codingPath: [any CodingKey]) {
        self.readerPointer = reader
        self.codingPath = codingPath
        self.cursor = array + 1
        self.end = reader.pointee.next(array)
        self.total = reader.pointee.childCount(array)
    }

    package var count: Int? { total }
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

    package mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, reader.isNull(cursor) else { return false }
        _ = try advance()
        return true
    }

    package mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (node, path) = try advance()
        return try IndexDecoder.decode(type, readerPointer, node, path)
    }

    package mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (node, path) = try advance()
        return try IndexDecoder(reader: readerPointer, node: node, codingPath: path).container(keyedBy: type)
    }

    package mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (node, path) = try advance()
        return try IndexDecoder(reader: readerPointer, node: node, codingPath: path).unkeyedContainer()
    }

    package mutating func superDecoder() throws -> any Decoder {
        let (node, path) = try advance()
        return IndexDecoder(reader: readerPointer, node: node, codingPath: path)
    }
}

private struct SingleIndexContainer: SingleValueDecodingContainer {
    let readerPointer: UnsafePointer<JSONReader>
    package let node: Int
    package let codingPath: [any CodingKey]
    package var reader: JSONReader { readerPointer.pointee }

    package func decodeNil() -> Bool { reader.isNull(node) }

    package func decode<T: Decodable>(_ type: T.Type) throws -> T { try IndexDecoder.decode(type, readerPointer, node, codingPath) }
    package func decode(_ type: Bool.Type) throws -> Bool { try IndexDecoder.bool(reader, node, codingPath) }
    package func decode(_ type: String.Type) throws -> String { try IndexDecoder.string(reader, node, codingPath) }
    package func decode(_ type: Double.Type) throws -> Double { try IndexDecoder.double(reader, node, codingPath) }
    package func decode(_ type: Float.Type) throws -> Float { Float(try IndexDecoder.double(reader, node, codingPath)) }
    package func decode(_ type: Int.Type) throws -> Int { try IndexDecoder.integer(type, reader, node, codingPath) }
    package func decode(_ type: Int8.Type) throws -> Int8 { try IndexDecoder.integer(type, reader, node, codingPath) }
    package func decode(_ type: Int16.Type) throws -> Int16 { try IndexDecoder.integer(type, reader, node, codingPath) }
    package func decode(_ type: Int32.Type) throws -> Int32 { try IndexDecoder.integer(type, reader, node, codingPath) }
    package func decode(_ type: Int64.Type) throws -> Int64 { try IndexDecoder.integer(type, reader, node, codingPath) }
    package func decode(_ type: UInt.Type) throws -> UInt { try IndexDecoder.integer(type, reader, node, codingPath) }
    package func decode(_ type: UInt8.Type) throws -> UInt8 { try IndexDecoder.integer(type, reader, node, codingPath) }
    package func decode(_ type: UInt16.Type) throws -> UInt16 { try IndexDecoder.integer(type, reader, node, codingPath) }
    package func decode(_ type: UInt32.Type) throws -> UInt32 { try IndexDecoder.integer(type, reader, node, codingPath) }
    package func decode(_ type: UInt64.Type) throws -> UInt64 { try IndexDecoder.integer(type, reader, node, codingPath) }
}
