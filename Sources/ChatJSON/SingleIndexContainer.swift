import Foundation

struct SingleIndexContainer: SingleValueDecodingContainer {
    let readerPointer: UnsafePointer<JSONReader>
    let node: Int
    let codingPath: [any CodingKey]
    var reader: JSONReader { readerPointer.pointee }

    func decodeNil() -> Bool { reader.isNull(node) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try IndexDecoder.decode(type, readerPointer, node, codingPath) }
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
