import Foundation

struct KeyedIndexContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    // Three words, so that the copy Codable's type-erasing box makes for every field read is a
    // copy of three words and one retain.
    let readerPointer: UnsafePointer<JSONReader>
    let object: Int
    let codingPath: [any CodingKey]

    init(reader: UnsafePointer<JSONReader>, object: Int, codingPath: [any CodingKey]) {
        self.readerPointer = reader
        self.object = object
        self.codingPath = codingPath
    }

    var reader: JSONReader {
        @inline(__always) _read { yield readerPointer.pointee }
    }

    var allKeys: [Key] {
        reader.members(object).compactMap { member in (try? reader.string(member.key)).flatMap { Key(stringValue: $0) } }
    }

    func find(_ key: Key) -> Int? {
        var name = key.stringValue
        return name.withUTF8 { reader.member(object, utf8: $0) }
    }

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
        try IndexDecoder.decode(type, readerPointer, member(key), codingPath + [key])
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let node = present(key) else { return nil }
        return try IndexDecoder.decode(type, readerPointer, node, codingPath + [key])
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
        try IndexDecoder(reader: readerPointer, node: member(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try IndexDecoder(reader: readerPointer, node: member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        IndexDecoder(reader: readerPointer, node: try member(Key(stringValue: "super")!), codingPath: codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        IndexDecoder(reader: readerPointer, node: try member(key), codingPath: codingPath + [key])
    }
}
