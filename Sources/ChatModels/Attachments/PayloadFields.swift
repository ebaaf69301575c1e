import Foundation

/// Reading and writing the flat fields of the built-in payloads, with the tolerance the real
/// clients need (`file_size` may be a number or a numeric string) and extra-data capture.
struct PayloadFields {
    let container: KeyedDecodingContainer<AnyCodingKey>

    init(_ decoder: any Decoder) throws {
        container = try decoder.container(keyedBy: AnyCodingKey.self)
    }

    func string(_ key: String) throws -> String? {
        try container.decodeIfPresent(String.self, forKey: AnyCodingKey(key))
    }

    func url(_ key: String) throws -> URL? {
        guard let text = try string(key), !text.isEmpty else { return nil }
        guard let url = URL(string: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: container.codingPath + [AnyCodingKey(key)], debugDescription: "invalid URL \"\(text)\""))
        }
        return url
    }

    /// The first present URL among `keys`; throws `keyNotFound` naming the first key if none is.
    func requiredURL(_ keys: String...) throws -> URL {
        for key in keys {
            if let url = try url(key) { return url }
        }
        throw DecodingError.keyNotFound(
            AnyCodingKey(keys[0]),
            .init(codingPath: container.codingPath, debugDescription: "required field \"\(keys[0])\" is missing"))
    }

    func double(_ key: String) throws -> Double? {
        try container.decodeIfPresent(Double.self, forKey: AnyCodingKey(key))
    }

    /// A byte count written as a number or, as some web clients do, a numeric string.
    func fileSize(_ key: String) throws -> Int64? {
        let codingKey = AnyCodingKey(key)
        guard container.contains(codingKey), try !container.decodeNil(forKey: codingKey) else { return nil }
        if let text = try? container.decode(String.self, forKey: codingKey) {
            guard let value = Int64(text.trimmingCharacters(in: .whitespaces)), value >= 0 else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: container.codingPath + [codingKey], debugDescription: "\"\(text)\" is not a byte count"))
            }
            return value
        }
        let value = try container.decode(Int64.self, forKey: codingKey)
        guard value >= 0 else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: container.codingPath + [codingKey], debugDescription: "a byte count cannot be negative"))
        }
        return value
    }

    func decode<T: Decodable>(_ type: T.Type, _ key: String) throws -> T? {
        try container.decodeIfPresent(type, forKey: AnyCodingKey(key))
    }

    /// Every member not in `known`, as raw JSON.
    func extraData(excluding known: Set<String>) throws -> [String: RawJSON] {
        var extra: [String: RawJSON] = [:]
        for key in container.allKeys where !known.contains(key.stringValue) {
            extra[key.stringValue] = try container.decode(RawJSON.self, forKey: key)
        }
        return extra
    }
}

/// The writing side of ``PayloadFields``: absent values are left out, extra data goes last.
struct PayloadWriter {
    var container: KeyedEncodingContainer<AnyCodingKey>

    init(_ encoder: any Encoder) {
        container = encoder.container(keyedBy: AnyCodingKey.self)
    }

    mutating func set<T: Encodable>(_ key: String, _ value: T?) throws {
        if let value { try container.encode(value, forKey: AnyCodingKey(key)) }
    }

    mutating func setExtraData(_ extraData: [String: RawJSON], excluding known: Set<String>) throws {
        for key in extraData.keys.sorted() where !known.contains(key) {
            try container.encode(extraData[key], forKey: AnyCodingKey(key))
        }
    }
}
