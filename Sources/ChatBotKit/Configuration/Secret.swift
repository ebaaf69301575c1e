/// A secret from the configuration: usable, but never printed or logged.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The secret itself; pass it only where it is needed.
    public let value: String

    /// A secret.
    public init(_ value: String) { self.value = value }

    /// `********`, whatever the value.
    public var description: String { "********" }
    /// `Secret(********)`.
    public var debugDescription: String { "Secret(********)" }
}
