import Foundation

/// A URL preview the server scraped (`og_scrape_url`), whatever its wire `type`.
public struct LinkAttachmentPayload: AttachmentPayload {
    /// `.linkPreview`.
    public static let type: AttachmentType = .linkPreview
    // `type` is deliberately not here: a preview's wire type (image, video, ...) stays in
    // extraData so it is written back unchanged.
    static let knownKeys: Set<String> = [
        "og_scrape_url", "title", "text", "author_name", "title_link", "asset_url", "image_url", "image", "thumb_url",
    ]

    /// The URL that was scraped; required.
    public var originalURL: URL
    /// `og:title`.
    public var title: String?
    /// `og:description`.
    public var text: String?
    /// `og:site_name`.
    public var author: String?
    /// `og:url`.
    public var titleLink: URL?
    /// `og:video` / `og:audio`.
    public var assetURL: URL?
    /// `og:image` (`image_url`, else `image`, else `asset_url`).
    public var imageURL: URL?
    /// The preview image (`thumb_url`, else the image).
    public var previewURL: URL?
    /// Every other field, including the wire `type`.
    public var extraData: [String: RawJSON]

    /// A link preview payload.
    public init(
        originalURL: URL, title: String? = nil, text: String? = nil, author: String? = nil, titleLink: URL? = nil,
        assetURL: URL? = nil, imageURL: URL? = nil, previewURL: URL? = nil, extraData: [String: RawJSON] = [:]
    ) {
        self.originalURL = originalURL
        self.title = title
        self.text = text
        self.author = author
        self.titleLink = titleLink
        self.assetURL = assetURL
        self.imageURL = imageURL
        self.previewURL = previewURL
        self.extraData = extraData
    }

    /// Decodes with Stream's fallbacks for the image and the preview.
    public init(from decoder: any Decoder) throws {
        let fields = try PayloadFields(decoder)
        originalURL = try fields.requiredURL("og_scrape_url")
        title = try fields.string("title")
        text = try fields.string("text")
        author = try fields.string("author_name")
        titleLink = try fields.url("title_link")
        assetURL = try fields.url("asset_url")
        imageURL = try fields.url("image_url") ?? fields.url("image") ?? assetURL
        previewURL = try fields.url("thumb_url") ?? imageURL
        extraData = try fields.extraData(excluding: Self.knownKeys)
    }

    /// Encodes the flat wire form.
    public func encode(to encoder: any Encoder) throws {
        var writer = PayloadWriter(encoder)
        try writer.set("og_scrape_url", originalURL)
        try writer.set("title", title)
        try writer.set("text", text)
        try writer.set("author_name", author)
        try writer.set("title_link", titleLink)
        try writer.set("asset_url", assetURL)
        try writer.set("image_url", imageURL)
        try writer.set("thumb_url", previewURL)
        try writer.setExtraData(extraData, excluding: Self.knownKeys)
    }
}
