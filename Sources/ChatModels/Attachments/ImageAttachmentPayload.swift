import Foundation

/// An image: `image_url` (or `image`, or `asset_url`), with its title, size and dimensions.
public struct ImageAttachmentPayload: AttachmentPayload {
    /// `.image`.
    public static let type: AttachmentType = .image
    static let knownKeys: Set<String> = [
        "type", "title", "fallback", "name", "image", "image_url", "asset_url", "thumb_url", "original_width",
        "original_height", "file_size", "mime_type",
    ]

    /// The title (`title`, else `fallback`, else `name`).
    public var title: String?
    /// The image (`image`, else `image_url`, else `asset_url`); required.
    public var imageURL: URL
    /// A thumbnail.
    public var thumbURL: URL?
    /// Width in pixels.
    public var originalWidth: Double?
    /// Height in pixels.
    public var originalHeight: Double?
    /// Size in bytes.
    public var fileSize: Int64?
    /// MIME type.
    public var mimeType: String?
    /// Every other field, flat on the wire.
    public var extraData: [String: RawJSON]

    /// An image payload.
    public init(
        title: String? = nil, imageURL: URL, thumbURL: URL? = nil, originalWidth: Double? = nil,
        originalHeight: Double? = nil, fileSize: Int64? = nil, mimeType: String? = nil, extraData: [String: RawJSON] = [:]
    ) {
        self.title = title
        self.imageURL = imageURL
        self.thumbURL = thumbURL
        self.originalWidth = originalWidth
        self.originalHeight = originalHeight
        self.fileSize = fileSize
        self.mimeType = mimeType
        self.extraData = extraData
    }

    /// Decodes with Stream's fallbacks for the URL and the title.
    public init(from decoder: any Decoder) throws {
        let fields = try PayloadFields(decoder)
        title = try fields.string("title") ?? fields.string("fallback") ?? fields.string("name")
        imageURL = try fields.requiredURL("image_url", "image", "asset_url")
        thumbURL = try fields.url("thumb_url")
        originalWidth = try fields.double("original_width")
        originalHeight = try fields.double("original_height")
        fileSize = try fields.fileSize("file_size")
        mimeType = try fields.string("mime_type")
        extraData = try fields.extraData(excluding: Self.knownKeys)
    }

    /// Encodes the flat wire form (`image_url`, `title`, ...).
    public func encode(to encoder: any Encoder) throws {
        var writer = PayloadWriter(encoder)
        try writer.set("title", title)
        try writer.set("image_url", imageURL)
        try writer.set("thumb_url", thumbURL)
        try writer.set("original_width", originalWidth)
        try writer.set("original_height", originalHeight)
        try writer.set("file_size", fileSize)
        try writer.set("mime_type", mimeType)
        try writer.setExtraData(extraData, excluding: Self.knownKeys)
    }
}
