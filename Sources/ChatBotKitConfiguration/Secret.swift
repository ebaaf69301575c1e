import ChatBotKit
import Foundation

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

extension Secret {
    /// `url` with its password, if it has one, replaced by `***`, for errors and logs
    /// (`postgres://bot:***@db/app`); text that is not a URL comes back as it is.
    public static func maskingPassword(in url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? url
    }
}
