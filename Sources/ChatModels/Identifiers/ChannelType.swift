/// A channel type (`messaging`, `livestream`, ... or one of your own).
public struct ChannelType: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The wire value.
    public let rawValue: String
    /// A channel type from its wire value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A channel type from a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// One-to-one and group conversations.
    public static let messaging = Self(rawValue: "messaging")
    /// Livestream chat.
    public static let livestream = Self(rawValue: "livestream")
    /// Team chat.
    public static let team = Self(rawValue: "team")
    /// Gaming chat.
    public static let gaming = Self(rawValue: "gaming")
    /// Commerce chat.
    public static let commerce = Self(rawValue: "commerce")

    /// The wire value.
    public var description: String { rawValue }

    /// Decodes from a JSON string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes as a JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
