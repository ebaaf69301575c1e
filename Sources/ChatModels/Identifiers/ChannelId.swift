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
        guard !part.isEmpty, part.count <= 64 else { return false }
        for byte in part where !isAllowed(byte) { return false }
        return true
    }

    /// Whether the bytes of a type or id part in a document use only the characters Stream allows.
    static func isValidPart(_ part: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !part.isEmpty, part.count <= 64, let start = part.baseAddress else { return false }
        // No branch per byte: each byte's bit in the bitmap, and 0 for a non-ASCII byte.
        var allowed: UInt64 = 1
        for offset in 0..<part.count {
            let byte = UInt64(start[offset])
            let word = byte & 64 == 0 ? allowedBelow64 : allowedFrom64
            allowed &= word >> (byte & 63) & (byte >> 7 ^ 1)
        }
        return allowed == 1
    }

    /// Whether `byte` may appear in a part: letters, digits, `-`, `_`, `!` and `@`, looked up in
    /// a bitmap of the 128 ASCII bytes (a chain of eight range tests per byte before; every
    /// event's channel id is checked).
    @inline(__always)
    private static func isAllowed(_ byte: UInt8) -> Bool {
        let byte = UInt64(byte)
        return byte < 128 && (byte & 64 == 0 ? allowedBelow64 : allowedFrom64) >> (byte & 63) & 1 == 1
    }

    /// The allowed bytes 0-63 as bits: '!' (0x21), '-' (0x2D), '0'-'9'.
    private static let allowedBelow64: UInt64 = 0x03FF_2002_0000_0000
    /// The allowed bytes 64-127 as bits from 64: '@' (0x40), 'A'-'Z', '_', 'a'-'z'.
    private static let allowedFrom64: UInt64 = 0x07FF_FFFE_87FF_FFFF

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
