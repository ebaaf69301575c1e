import Foundation

struct UnkeyedIndexContainer: UnkeyedDecodingContainer {
    let readerPointer: UnsafePointer<JSONReader>
    let codingPath: [any CodingKey]
    let end: Int
    let total: Int
    var cursor: Int
    var currentIndex = 0
    var reader: JSONReader { readerPointer.pointee }

    init(reader: UnsafePointer<JSONReader>, array: Int, codingPath: [any CodingKey]) {
        self.readerPointer = reader
        self.codingPath = codingPath
        self.cursor = array + 1
        self.end = reader.pointee.next(array)
        self.total = reader.pointee.childCount(array)
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
        return try IndexDecoder.decode(type, readerPointer, node, path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (node, path) = try advance()
        return try IndexDecoder(reader: readerPointer, node: node, codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (node, path) = try advance()
        return try IndexDecoder(reader: readerPointer, node: node, codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (node, path) = try advance()
        return IndexDecoder(reader: readerPointer, node: node, codingPath: path)
    }
}
