import Foundation

/// A `Decoder` that parses nothing: every field a type asks for gets a constant (or is absent).
/// Decoding a payload through it measures what Codable's own dispatch costs (the decoder and
/// container allocations, the generic metadata lookups, one dynamic call per field), the floor
/// under any Codable decoder, however fast its parsing.
final class NullDecoder: Decoder {
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    /// What URL fields get: built once, so that `URL(string:)` is not part of the measurement.
    let url: URL

    init(url: URL) { self.url = url }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(NullKeyedContainer<Key>(url: url))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: [], debugDescription: "the null decoder has no arrays"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(Any.self, .init(codingPath: [], debugDescription: "the null decoder has no single values"))
    }
}

/// Answers `Int`, `String` and `URL` fields with constants; every other field is absent.
struct NullKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let url: URL
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard let value = try decodeIfPresent(type, forKey: key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: [key], debugDescription: "the null decoder has no \(T.self)"))
        }
        return value
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { url as? T }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { key.stringValue.utf8.count }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { "run" }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(NullKeyedContainer<NestedKey>(url: url))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: [key], debugDescription: "the null decoder has no arrays"))
    }

    func superDecoder() throws -> any Decoder { NullDecoder(url: url) }
    func superDecoder(forKey key: Key) throws -> any Decoder { NullDecoder(url: url) }
}
