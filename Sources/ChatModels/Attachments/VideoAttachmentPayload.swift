import Foundation

/// A video: `asset_url`, a `thumb_url`, duration and dimensions.
public struct VideoAttachmentPayload: AttachmentPayload {
    /// `.video`.
    public static let type: AttachmentType = .video
    static let knownKeys: Set<String> = [
        "type", "title", "asset_url", "thumb_url", "duration", "original_width", "original_height", "file_size", "mime_type",
    ]

    /// The title.
    public var title: String?
    /// The video (`asset_url`); required.
    public var videoURL: URL
    /// A poster frame (`thumb_url`).
    public var thumbnailURL: URL?
    /// Length in seconds.
    public var duration: Double?
    /// Width in pixels.
    public var originalWidth: Double?
    /// Height in pixels.
    public var originalHeight: Double?
    /// Size in bytes.
    public var fileSize: Int64?
    /// MIME type.
    public var mimeType: String?
    /// Every other field.
    public var extraData: [String: RawJSON]

    /// A video payload.
    public init(
        title: String? = nil, videoURL: URL, thumbnailURL: URL? = nil, duration: Double? = nil,
        originalWidth: Double? = nil, originalHeight: Double? = nil, fileSize: Int64? = nil, mimeType: String? = nil,
        extraData: [String: RawJSON] = [:]
    ) {
        self.title = title
        self.videoURL = videoURL
        self.thumbnailURL = thumbnailURL
        self.duration = duration
        self.originalWidth = originalWidth
        self.originalHeight = originalHeight
        self.fileSize = fileSize
        self.mimeType = mimeType
        self.extraData = extraData
    }

    /// Decodes the flat wire form.
    public init(from decoder: any Decoder) throws {
        let fields = try PayloadFields(decoder)
        title = try fields.string("title")
        videoURL = try fields.requiredURL("asset_url")
        thumbnailURL = try fields.url("thumb_url")
        duration = try fields.double("duration")
        originalWidth = try fields.double("original_width")
        originalHeight = try fields.double("original_height")
        fileSize = try fields.fileSize("file_size")
        mimeType = try fields.string("mime_type")
        extraData = try fields.extraData(excluding: Self.knownKeys)
    }

    /// Encodes the flat wire form.
    public func encode(to encoder: any Encoder) throws {
        var writer = PayloadWriter(encoder)
        try writer.set("title", title)
        try writer.set("asset_url", videoURL)
        try writer.set("thumb_url", thumbnailURL)
        try writer.set("duration", duration)
        try writer.set("original_width", originalWidth)
        try writer.set("original_height", originalHeight)
        try writer.set("file_size", fileSize)
        try writer.set("mime_type", mimeType)
        try writer.setExtraData(extraData, excluding: Self.knownKeys)
    }
}
