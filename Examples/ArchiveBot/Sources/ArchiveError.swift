/// Why the archive could not do what was asked.
public struct ArchiveError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure it is.
    public struct Code: RawRepresentable, Hashable, Sendable {
        /// The code's text.
        public let rawValue: String
        /// A code with this text.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// A manifest line is not an entry: the archive leaves the manifest and its files alone
        /// until the line is mended or removed.
        public static let damagedManifest = Code(rawValue: "archive.damaged_manifest")
    }

    /// The kind of failure.
    public let code: Code
    /// What went wrong and where, for a person to act on.
    public let message: String

    /// The code and the message.
    public var description: String { "\(code.rawValue): \(message)" }
}
