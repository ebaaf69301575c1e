import Foundation

/// Encodes `Encodable` values into a ``RawJSON`` tree, keeping the order in which members were
/// encoded. Dates become RFC 3339 strings with microseconds, URLs their absolute string, `Data`
/// base64, and ``RawJSON`` values are embedded as they are.
public struct RawJSONEncoder: Sendable {
    /// Creates an encoder.
    public init() {}

    /// Encodes `value` as a JSON tree.
    public func encode<T: Encodable>(_ value: T) throws -> RawJSON {
        try TreeEncoder.encode(value, codingPath: [])
    }

    /// Encodes `value` as compact JSON bytes.
    public func encodeData<T: Encodable>(_ value: T) throws -> Data {
        JSONWriter.data(try encode(value))
    }
}

/// A node under construction: containers are reference types so nested containers handed out
/// earlier can still be filled in.
final class EncodingNode {
    package enum Content {
        case empty
        case value(RawJSON)
        case object([(String, EncodingNode)])
        case array([EncodingNode])
    }

    package var content: Content = .empty

    package init() {}
    package init(_ value: RawJSON) { content = .value(value) }

    package func build() -> RawJSON {
        switch content {
        case .empty: return .object(JSONObject())
        case .value(let value): return value
        case .object(let members):
            var object = JSONObject(reservingCapacity: members.count)
            for (key, node) in members { object[key] = node.build() }
            return .object(object)
        case .array(let nodes): return .array(nodes.map { $0.build() })
        }
    }

    func setMember(_ key: String, _ node: EncodingNode) {
        guard case .object(var members) = content else { return }
        content = .empty
        if let index = members.firstIndex(where: { $0.0 == key }) {
            members[index].1 = node
        } else {
            members.append((key, node))
        }
        content = .object(members)
    }

    func appendElement(_ node: EncodingNode) {
        guard case .array(var nodes) = content else { return }
        content = .empty
        nodes.append(node)
        content = .array(nodes)
    }

    var elementCount: Int {
        if case .array(let nodes) = content { return nodes.count }
        return 0
    }
}

final class TreeEncoder: Encoder {
    package let node: EncodingNode
    package let codingPath: [any CodingKey]
    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    package init(node: EncodingNode, codingPath: [any CodingKey]) {
        self.node = node
        self.codingPath = codingPath
    }

    package static func encode<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws -> RawJSON {
        if let special = specialValue(value) { return special }
        let node = EncodingNode()
        try value.encode(to: TreeEncoder(node: node, codingPath: codingPath))
        return node.build()
    }

    /// Values whose JSON form is fixed here rather than by their own `encode(to:)`.
    static func specialValue<T: Encodable>(_ value: T) -> RawJSON? {
        switch value {
        case let json as RawJSON: return json
        case let object as JSONObject: return .object(object)
        case let text as String: return .string(text)
        case let flag as Bool: return .bool(flag)
        case let number as Int: return .number(JSONNumber(number))
        case let number as Double: return .number(JSONNumber(number))
        case let url as URL: return .string(url.absoluteString)
        case let date as Date: return .string(RFC3339.string(from: date))
        case let data as Data: return .string(data.base64EncodedString())
        default: return nil
        }
    }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.content {} else { node.content = .object([]) }
        return KeyedEncodingContainer(KeyedTreeEncodingContainer<Key>(node: node, codingPath: codingPath))
    }

    package func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return UnkeyedTreeEncodingContainer(node: node, codingPath: codingPath)
    }

    package func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleTreeEncodingContainer(node: node, codingPath: codingPath)
    }
}

private struct KeyedTreeEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    package let node: EncodingNode
    package let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws {
        node.setMember(key.stringValue, EncodingNode(.null))
    }

    package mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let json = try TreeEncoder.encode(value, codingPath: codingPath + [key])
        node.setMember(key.stringValue, EncodingNode(json))
    }

    package mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = EncodingNode()
        child.content = .object([])
        node.setMember(key.stringValue, child)
        return KeyedEncodingContainer(KeyedTreeEncodingContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    package mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = EncodingNode()
        child.content = .array([])
        node.setMember(key.stringValue, child)
        return UnkeyedTreeEncodingContainer(node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        let child = EncodingNode()
        node.setMember("super", child)
        return TreeEncoder(node: child, codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let child = EncodingNode()
        node.setMember(key.stringValue, child)
        return TreeEncoder(node: child, codingPath: codingPath + [key])
    }
}

private struct UnkeyedTreeEncodingContainer: UnkeyedEncodingContainer {
    package let node: EncodingNode
    package let codingPath: [any CodingKey]
    package var count: Int { node.elementCount }

    mutating func encodeNil() throws { node.appendElement(EncodingNode(.null)) }

    package mutating func encode<T: Encodable>(_ value: T) throws {
        let json = try TreeEncoder.encode(value, codingPath: codingPath + [AnyCodingKey(intValue: count)])
        node.appendElement(EncodingNode(json))
    }

    package mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let child = EncodingNode()
        child.content = .object([])
        let path = codingPath + [AnyCodingKey(intValue: count)]
        node.appendElement(child)
        return KeyedEncodingContainer(KeyedTreeEncodingContainer<NestedKey>(node: child, codingPath: path))
    }

    package mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = EncodingNode()
        child.content = .array([])
        let path = codingPath + [AnyCodingKey(intValue: count)]
        node.appendElement(child)
        return UnkeyedTreeEncodingContainer(node: child, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let child = EncodingNode()
        let path = codingPath + [AnyCodingKey(intValue: count)]
        node.appendElement(child)
        return TreeEncoder(node: child, codingPath: path)
    }
}

private struct SingleTreeEncodingContainer: SingleValueEncodingContainer {
    package let node: EncodingNode
    package let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.content = .value(.null) }

    package mutating func encode<T: Encodable>(_ value: T) throws {
        node.content = .value(try TreeEncoder.encode(value, codingPath: codingPath))
    }

    package mutating func encode(_ value: Bool) throws { node.content = .value(.bool(value)) }
    package mutating func encode(_ value: String) throws { node.content = .value(.string(value)) }
    package mutating func encode(_ value: Double) throws { node.content = .value(.number(JSONNumber(value))) }
    package mutating func encode(_ value: Float) throws { node.content = .value(.number(JSONNumber(Double(value)))) }
    package mutating func encode(_ value: Int) throws { node.content = .value(.number(JSONNumber(value))) }
    package mutating func encode(_ value: Int8) throws { node.content = .value(.number(JSONNumber(value))) }
    package mutating func encode(_ value: Int16) throws { node.content = .value(.number(JSONNumber(value))) }
    package mutating func encode(_ value: Int32) throws { node.content = .value(.number(JSONNumber(value))) }
    package mutating func encode(_ value: Int64) throws { node.content = .value(.number(JSONNumber(value))) }
    package mutating func encode(_ value: UInt) throws { node.content = .value(.number(JSONNumber(value))) }
    package mutating func encode(_ value: UInt8) throws { node.content = .value(.number(JSONNumber(value))) }
    package mutating func encode(_ value: UInt16) throws { node.content = .value(.number(JSONNumber(value))) }
    package mutating func encode(_ value: UInt32) throws { node.content = .value(.number(JSONNumber(value))) }
    package mutating func encode(_ value: UInt64) throws { node.content = .value(.number(JSONNumber(value))) }
}
