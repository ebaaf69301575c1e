/// A channel's full id, `type:id` on the wire (`messaging:general`).
public struct ChannelId: Hashable, Sendable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The channel type.
    public let type: ChannelType
    /// The id within the type.
    public let id: String

    /// A channel id from its parts.
    public init(type: ChannelType, id: String) {
        self.type = type
        self.id = id
    }

    /// Parses `type:id`; throws when either part is missing or contains characters the API refuses.
    public init(cid: String) throws(JSONError) {
        guard let colon = cid.utf8.firstIndex(of: UInt8(ascii: ":")) else {
            throw JSONError(code: .invalidValue, message: "channel id \"\(cid)\" must look like type:id (for example messaging:general)")
        }
        let type = String(cid[..<colon])
        let id = String(cid[cid.utf8.index(after: colon)...])
        guard ChannelId.isValidPart(type.utf8), ChannelId.isValidPart(id.utf8) else {
            throw JSONError(
                code: .invalidValue,
                message: "channel id \"\(cid)\" has an empty or invalid part; use letters, digits, '-', '_' and '!'")
        }
        self.init(type: ChannelType(rawValue: type), id: id)
    }

    /// Parses a literal such as `"messaging:general"`; a malformed literal is a programming error.
    public init(stringLiteral value: String) {
        do {
            try self.init(cid: value)
        } catch {
            preconditionFailure(error.description)
        }
    }

    /// `type:id`.
    public var rawValue: String { "\(type.rawValue):\(id)" }

    /// `type:id`.
    public var description: String { rawValue }

    /// Whether a type or id part uses only the characters Stream allows.
    public static func isValidPart(_ part: String) -> Bool { isValidPart(part.utf8) }

    /// Whether the UTF-8 bytes of a type or id part use only the characters Stream allows.
    static func isValidPart<Bytes: Collection>(_ part: Bytes) -> Bool where Bytes.Element == UInt8 {
        !part.isEmpty && part.count <= 64
            && part.allSatisfy { byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "!") || byte == UInt8(ascii: "@")
            }
    }

    /// Decodes `type:id`.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(cid: text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    /// Encodes `type:id`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
