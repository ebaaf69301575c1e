import Foundation

extension RawJSON: Codable {
    /// Decodes any JSON value. With ``RawJSONDecoder`` the tree is taken as it is; other decoders
    /// (such as Foundation's `JSONDecoder`) are asked for each JSON type in turn.
    public init(from decoder: any Decoder) throws {
        if let indexed = decoder as? IndexDecoder {
            // The reader is alive: this runs inside the decoding that made the decoder.
            self = try IndexDecoder.rawJSON(indexed.reader, indexed.node, indexed.codingPath)
            return
        }
        if let container = try? decoder.container(keyedBy: AnyCodingKey.self) {
            var object = JSONObject()
            for key in container.allKeys {
                object[key.stringValue] = try container.decode(RawJSON.self, forKey: key)
            }
            self = .object(object)
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var elements: [RawJSON] = []
            while !container.isAtEnd { elements.append(try container.decode(RawJSON.self)) }
            self = .array(elements)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let integer = try? container.decode(Int64.self) {
            self = .number(JSONNumber(integer))
        } else if let double = try? container.decode(Double.self) {
            self = .number(JSONNumber(double))
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    /// Encodes the value; ``RawJSONEncoder`` embeds it unchanged.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .number(let number):
            var container = encoder.singleValueContainer()
            if let integer = Int64(number.literal) {
                try container.encode(integer)
            } else if let double = number.double {
                try container.encode(double)
            } else {
                throw EncodingError.invalidValue(
                    number, .init(codingPath: encoder.codingPath, debugDescription: "number \(number.literal) does not fit in Double"))
            }
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let object):
            var container = encoder.container(keyedBy: AnyCodingKey.self)
            for (key, value) in object { try container.encode(value, forKey: AnyCodingKey(key)) }
        }
    }
}

extension JSONObject: Codable {
    /// Decodes a JSON object.
    public init(from decoder: any Decoder) throws {
        guard case .object(let object) = try RawJSON(from: decoder) else {
            throw DecodingError.typeMismatch(
                JSONObject.self, .init(codingPath: decoder.codingPath, debugDescription: "expected an object"))
        }
        self = object
    }

    /// Encodes the object, members in order.
    public func encode(to encoder: any Encoder) throws {
        try RawJSON.object(self).encode(to: encoder)
    }
}
