/// The kind of a message (`regular`, `reply`, `system`, `deleted`, ...). Open for new values.
public struct MessageType: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The wire value.
    public let rawValue: String
    /// A message type from its wire value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A message type from a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// An ordinary message.
    public static let regular = Self(rawValue: "regular")
    /// A message shown only to its author (for example a `/giphy` preview).
    public static let ephemeral = Self(rawValue: "ephemeral")
    /// An error shown to its author.
    public static let error = Self(rawValue: "error")
    /// A thread reply.
    public static let reply = Self(rawValue: "reply")
    /// A system message.
    public static let system = Self(rawValue: "system")
    /// A soft-deleted message.
    public static let deleted = Self(rawValue: "deleted")

    /// The wire value.
    public var description: String { rawValue }
}
