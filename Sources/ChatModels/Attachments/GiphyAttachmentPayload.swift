import Foundation

/// A giphy result: the preview (`thumb_url`), its page, the renditions and the actions.
public struct GiphyAttachmentPayload: AttachmentPayload {
    /// `.giphy`.
    public static let type: AttachmentType = .giphy
    static let knownKeys: Set<String> = ["type", "title", "thumb_url", "title_link", "actions", "giphy"]

    /// The search text.
    public var title: String?
    /// The animated preview (`thumb_url`); required.
    public var previewURL: URL
    /// The giphy page.
    public var titleLink: URL?
    /// Send / Shuffle / Cancel, on ephemeral previews.
    public var actions: [AttachmentAction]
    /// The renditions (`original`, `fixed_height`, ...), whose values are strings on the wire.
    public var renditions: [String: [String: String]]
    /// Every other field.
    public var extraData: [String: RawJSON]

    /// A giphy payload.
    public init(
        title: String? = nil, previewURL: URL, titleLink: URL? = nil, actions: [AttachmentAction] = [],
        renditions: [String: [String: String]] = [:], extraData: [String: RawJSON] = [:]
    ) {
        self.title = title
        self.previewURL = previewURL
        self.titleLink = titleLink
        self.actions = actions
        self.renditions = renditions
        self.extraData = extraData
    }

    /// Decodes the flat wire form.
    public init(from decoder: any Decoder) throws {
        let fields = try PayloadFields(decoder)
        title = try fields.string("title")
        previewURL = try fields.requiredURL("thumb_url")
        titleLink = try fields.url("title_link")
        actions = try fields.decode([AttachmentAction].self, "actions") ?? []
        renditions = try fields.decode([String: [String: String]].self, "giphy") ?? [:]
        extraData = try fields.extraData(excluding: Self.knownKeys)
    }

    /// Encodes the flat wire form.
    public func encode(to encoder: any Encoder) throws {
        var writer = PayloadWriter(encoder)
        try writer.set("title", title)
        try writer.set("title_link", titleLink)
        try writer.set("thumb_url", previewURL)
        if !actions.isEmpty { try writer.set("actions", actions) }
        if !renditions.isEmpty {
            let sorted = JSONObject(renditions.mapValues { RawJSON.object(JSONObject($0.mapValues(RawJSON.string))) })
            try writer.set("giphy", sorted)
        }
        try writer.setExtraData(extraData, excluding: Self.knownKeys)
    }
}
