import Foundation

/// An audio file: `asset_url`, title, duration.
public struct AudioAttachmentPayload: AttachmentPayload {
    /// `.audio`.
    public static let type: AttachmentType = .audio
    static let knownKeys: Set<String> = ["type", "title", "asset_url", "duration", "file_size", "mime_type"]

    /// The title.
    public var title: String?
    /// The audio (`asset_url`); required.
    public var audioURL: URL
    /// Length in seconds.
    public var duration: Double?
    /// Size in bytes.
    public var fileSize: Int64?
    /// MIME type.
    public var mimeType: String?
    /// Every other field.
    public var extraData: [String: RawJSON]

    /// An audio payload.
    public init(
        title: String? = nil, audioURL: URL, duration: Double? = nil, fileSize: Int64? = nil, mimeType: String? = nil,
        extraData: [String: RawJSON] = [:]
    ) {
        self.title = title
        self.audioURL = audioURL
        self.duration = duration
        self.fileSize = fileSize
        self.mimeType = mimeType
        self.extraData = extraData
    }

    /// Decodes the flat wire form.
    public init(from decoder: any Decoder) throws {
        let fields = try PayloadFields(decoder)
        title = try fields.string("title")
        audioURL = try fields.requiredURL("asset_url")
        duration = try fields.double("duration")
        fileSize = try fields.fileSize("file_size")
        mimeType = try fields.string("mime_type")
        extraData = try fields.extraData(excluding: Self.knownKeys)
    }

    /// Encodes the flat wire form.
    public func encode(to encoder: any Encoder) throws {
        var writer = PayloadWriter(encoder)
        try writer.set("title", title)
        try writer.set("asset_url", audioURL)
        try writer.set("duration", duration)
        try writer.set("file_size", fileSize)
        try writer.set("mime_type", mimeType)
        try writer.setExtraData(extraData, excluding: Self.knownKeys)
    }
}
