/// The kind of an attachment, from its `type` field. Open: any string is a valid type.
///
/// Extend it for your own payloads, as in Stream's docs:
/// ```swift
/// extension AttachmentType {
///     static let workout = Self(rawValue: "workout")
/// }
/// ```
public struct AttachmentType: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The wire value of `type`.
    public let rawValue: String

    /// A type from its wire value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A type from a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// Images (`image_url`).
    public static let image = Self(rawValue: "image")
    /// Videos (`asset_url`, `thumb_url`).
    public static let video = Self(rawValue: "video")
    /// Audio files (`asset_url`).
    public static let audio = Self(rawValue: "audio")
    /// Any other file (`asset_url`).
    public static let file = Self(rawValue: "file")
    /// Voice recordings (`asset_url`, `duration`, `waveform_data`); note the camelCase wire value.
    public static let voiceRecording = Self(rawValue: "voiceRecording")
    /// Giphy results of the `/giphy` command.
    public static let giphy = Self(rawValue: "giphy")
    /// URL previews the server scraped: any attachment carrying `og_scrape_url`, whatever its `type`.
    public static let linkPreview = Self(rawValue: "linkPreview")
    /// An attachment without a `type`.
    public static let unknown = Self(rawValue: "unknown")

    /// The built-in types whose payloads are registered by default.
    public static let builtIn: [AttachmentType] = [.image, .video, .audio, .file, .voiceRecording, .giphy, .linkPreview]

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
