import Foundation

/// Any file: `asset_url`, title, size and MIME type.
public struct FileAttachmentPayload: AttachmentPayload {
    /// `.file`.
    public static let type: AttachmentType = .file
    static let knownKeys: Set<String> = ["type", "title", "asset_url", "file_size", "mime_type"]

    /// The title, usually the file name.
    public var title: String?
    /// The file (`asset_url`); required.
    public var assetURL: URL
    /// Size in bytes.
    public var fileSize: Int64?
    /// MIME type, as declared by the sender.
    public var mimeType: String?
    /// Every other field.
    public var extraData: [String: RawJSON]

    /// A file payload.
    public init(
        title: String? = nil, assetURL: URL, fileSize: Int64? = nil, mimeType: String? = nil,
        extraData: [String: RawJSON] = [:]
    ) {
        self.title = title
        self.assetURL = assetURL
        self.fileSize = fileSize
        self.mimeType = mimeType
        self.extraData = extraData
    }

    /// Decodes the flat wire form.
    public init(from decoder: any Decoder) throws {
        let fields = try PayloadFields(decoder)
        title = try fields.string("title")
        assetURL = try fields.requiredURL("asset_url")
        fileSize = try fields.fileSize("file_size")
        mimeType = try fields.string("mime_type")
        extraData = try fields.extraData(excluding: Self.knownKeys)
    }

    /// Encodes the flat wire form.
    public func encode(to encoder: any Encoder) throws {
        var writer = PayloadWriter(encoder)
        try writer.set("title", title)
        try writer.set("asset_url", assetURL)
        try writer.set("file_size", fileSize)
        try writer.set("mime_type", mimeType)
        try writer.setExtraData(extraData, excluding: Self.knownKeys)
    }
}
