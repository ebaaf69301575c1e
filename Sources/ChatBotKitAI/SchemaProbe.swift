import Foundation

/// A string enumeration whose cases a derived schema lists as allowed values.
public protocol SchemaEnumeration: CaseIterable, RawRepresentable, Decodable where RawValue == String {}

extension JSONSchema {
    /// The schema of `type`, found by decoding it once from a decoder that records what it is
    /// asked for: a property per key, `decodeIfPresent` making it optional, nested types as
    /// objects, arrays from their first element, `Date` and `URL` as formatted strings, and a
    /// ``SchemaEnumeration``'s cases as allowed values. A type that checks its values while it
    /// decodes may refuse the probe's empty ones: declare its schema instead.
    public static func derived<T: Decodable>(from type: T.Type) throws -> JSONSchema {
        let root = SchemaProbe.Node()
        _ = try SchemaProbe.decode(T.self, into: root, codingPath: [])
        return root.schema
    }
}

/// The decoder behind ``JSONSchema/derived(from:)``.
enum SchemaProbe {
    final class Node {
        var schema = JSONSchema(.object)
        var children: [(name: String, node: Node, isRequired: Bool)] = []
        var element: Node?

        /// The finished schema, children included.
        var finished: JSONSchema {
            var result = schema
            if result.kind == .object {
                result.properties = children.map { JSONSchema.Property($0.name, $0.node.finished, required: $0.isRequired) }
            }
            if let element { result.items = [element.finished] }
            return result
        }
    }

    struct ProbeError: Error, CustomStringConvertible {
        let description: String
    }

    static func decode<T: Decodable>(_ type: T.Type, into node: Node, codingPath: [any CodingKey]) throws -> T {
        if let scalar = try scalar(T.self, node: node) { return scalar }
        if let enumeration = T.self as? any SchemaEnumeration.Type {
            node.schema = JSONSchema(.string, allowedValues: enumeration.allValues)
            return enumeration.firstCase as! T
        }
        let value = try T(from: Decoder(node: node, codingPath: codingPath))
        node.schema = node.finished
        return value
    }

    /// A leaf value and its schema, for the types that are JSON scalars.
    static func scalar<T>(_ type: T.Type, node: Node) throws -> T? {
        let kinds: [(Any.Type, JSONSchema, Any)] = [
            (String.self, .string(), ""), (Bool.self, .boolean(), false), (Int.self, .integer(), 0), (Int8.self, .integer(), Int8(0)),
            (Int16.self, .integer(), Int16(0)), (Int32.self, .integer(), Int32(0)), (Int64.self, .integer(), Int64(0)),
            (UInt.self, .integer(), UInt(0)), (UInt8.self, .integer(), UInt8(0)), (UInt16.self, .integer(), UInt16(0)),
            (UInt32.self, .integer(), UInt32(0)), (UInt64.self, .integer(), UInt64(0)), (Double.self, .number(), 0.0),
            (Float.self, .number(), Float(0)), (Date.self, JSONSchema(.string, format: "date-time"), Date(timeIntervalSince1970: 0)),
            (URL.self, JSONSchema(.string, format: "uri"), URL(fileURLWithPath: "/")),
        ]
        guard let match = kinds.first(where: { $0.0 == T.self }) else { return nil }
        node.schema = match.1
        return match.2 as? T
    }

    struct Decoder: Swift.Decoder {
        let node: Node
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            node.schema = JSONSchema(.object)
            return KeyedDecodingContainer(Keyed<Key>(node: node, codingPath: codingPath))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            node.schema = JSONSchema(.array)
            return Unkeyed(node: node, codingPath: codingPath)
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            Single(node: node, codingPath: codingPath)
        }
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let node: Node
        let codingPath: [any CodingKey]
        var allKeys: [Key] { [] }

        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool { false }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try probe(T.self, key, required: true)
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            try probe(T.self, key, required: false)
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try probe(Bool.self, key, required: true) }
        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try probe(Bool.self, key, required: false) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try probe(String.self, key, required: true) }
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try probe(String.self, key, required: false) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try probe(Double.self, key, required: true) }
        func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try probe(Double.self, key, required: false) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try probe(Float.self, key, required: true) }
        func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try probe(Float.self, key, required: false) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try probe(Int.self, key, required: true) }
        func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try probe(Int.self, key, required: false) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try probe(Int8.self, key, required: true) }
        func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try probe(Int8.self, key, required: false) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try probe(Int16.self, key, required: true) }
        func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try probe(Int16.self, key, required: false) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try probe(Int32.self, key, required: true) }
        func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try probe(Int32.self, key, required: false) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try probe(Int64.self, key, required: true) }
        func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try probe(Int64.self, key, required: false) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try probe(UInt.self, key, required: true) }
        func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try probe(UInt.self, key, required: false) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try probe(UInt8.self, key, required: true) }
        func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try probe(UInt8.self, key, required: false) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try probe(UInt16.self, key, required: true) }
        func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try probe(UInt16.self, key, required: false) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try probe(UInt32.self, key, required: true) }
        func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try probe(UInt32.self, key, required: false) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try probe(UInt64.self, key, required: true) }
        func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try probe(UInt64.self, key, required: false) }

        private func probe<T: Decodable>(_ type: T.Type, _ key: Key, required: Bool) throws -> T {
            let child = Node()
            node.children.removeAll { $0.name == key.stringValue }
            node.children.append((key.stringValue, child, required))
            return try SchemaProbe.decode(T.self, into: child, codingPath: codingPath + [key])
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            let child = Node()
            node.children.append((key.stringValue, child, true))
            return try Decoder(node: child, codingPath: codingPath + [key]).container(keyedBy: NestedKey.self)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            let child = Node()
            node.children.append((key.stringValue, child, true))
            return try Decoder(node: child, codingPath: codingPath + [key]).unkeyedContainer()
        }

        func superDecoder() throws -> any Swift.Decoder { Decoder(node: node, codingPath: codingPath) }
        func superDecoder(forKey key: Key) throws -> any Swift.Decoder { Decoder(node: node, codingPath: codingPath) }
    }

    /// An array, decoded as one element.
    struct Unkeyed: UnkeyedDecodingContainer {
        let node: Node
        let codingPath: [any CodingKey]
        var currentIndex = 0
        var count: Int? { 1 }
        var isAtEnd: Bool { currentIndex >= 1 }

        mutating func decodeNil() throws -> Bool { false }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try decode(T.self, generic: ())
        }

        mutating func decode(_ type: Bool.Type) throws -> Bool { try decode(Bool.self as Bool.Type, generic: ()) }
        mutating func decode(_ type: String.Type) throws -> String { try decode(String.self as String.Type, generic: ()) }
        mutating func decode(_ type: Double.Type) throws -> Double { try decode(Double.self as Double.Type, generic: ()) }
        mutating func decode(_ type: Float.Type) throws -> Float { try decode(Float.self as Float.Type, generic: ()) }
        mutating func decode(_ type: Int.Type) throws -> Int { try decode(Int.self as Int.Type, generic: ()) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try decode(Int8.self as Int8.Type, generic: ()) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try decode(Int16.self as Int16.Type, generic: ()) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try decode(Int32.self as Int32.Type, generic: ()) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try decode(Int64.self as Int64.Type, generic: ()) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try decode(UInt.self as UInt.Type, generic: ()) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decode(UInt8.self as UInt8.Type, generic: ()) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decode(UInt16.self as UInt16.Type, generic: ()) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decode(UInt32.self as UInt32.Type, generic: ()) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decode(UInt64.self as UInt64.Type, generic: ()) }

        private mutating func decode<T: Decodable>(_ type: T.Type, generic: Void) throws -> T {
            let element = node.element ?? Node()
            node.element = element
            currentIndex += 1
            return try SchemaProbe.decode(T.self, into: element, codingPath: codingPath)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let element = Node()
            node.element = element
            currentIndex += 1
            return try Decoder(node: element, codingPath: codingPath).container(keyedBy: NestedKey.self)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let element = Node()
            node.element = element
            currentIndex += 1
            return try Decoder(node: element, codingPath: codingPath).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Swift.Decoder { Decoder(node: node, codingPath: codingPath) }
    }

    struct Single: SingleValueDecodingContainer {
        let node: Node
        let codingPath: [any CodingKey]

        func decodeNil() -> Bool { false }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try SchemaProbe.decode(T.self, into: node, codingPath: codingPath)
        }

        func decode(_ type: Bool.Type) throws -> Bool { try SchemaProbe.decode(Bool.self, into: node, codingPath: codingPath) }
        func decode(_ type: String.Type) throws -> String { try SchemaProbe.decode(String.self, into: node, codingPath: codingPath) }
        func decode(_ type: Double.Type) throws -> Double { try SchemaProbe.decode(Double.self, into: node, codingPath: codingPath) }
        func decode(_ type: Float.Type) throws -> Float { try SchemaProbe.decode(Float.self, into: node, codingPath: codingPath) }
        func decode(_ type: Int.Type) throws -> Int { try SchemaProbe.decode(Int.self, into: node, codingPath: codingPath) }
        func decode(_ type: Int8.Type) throws -> Int8 { try SchemaProbe.decode(Int8.self, into: node, codingPath: codingPath) }
        func decode(_ type: Int16.Type) throws -> Int16 { try SchemaProbe.decode(Int16.self, into: node, codingPath: codingPath) }
        func decode(_ type: Int32.Type) throws -> Int32 { try SchemaProbe.decode(Int32.self, into: node, codingPath: codingPath) }
        func decode(_ type: Int64.Type) throws -> Int64 { try SchemaProbe.decode(Int64.self, into: node, codingPath: codingPath) }
        func decode(_ type: UInt.Type) throws -> UInt { try SchemaProbe.decode(UInt.self, into: node, codingPath: codingPath) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try SchemaProbe.decode(UInt8.self, into: node, codingPath: codingPath) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try SchemaProbe.decode(UInt16.self, into: node, codingPath: codingPath) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try SchemaProbe.decode(UInt32.self, into: node, codingPath: codingPath) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try SchemaProbe.decode(UInt64.self, into: node, codingPath: codingPath) }
    }
}

extension SchemaEnumeration {
    static var allValues: [String] { allCases.map(\.rawValue) }
    static var firstCase: Self { allCases.first! }
}
