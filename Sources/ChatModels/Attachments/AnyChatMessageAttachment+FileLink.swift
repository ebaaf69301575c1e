import Foundation

extension ChatMessageAttachment where Payload == Data {
    /// The link to the attachment's file and the field holding it: `image_url` (or `image`)
    /// first for images, `asset_url` first otherwise, `thumb_url` last; nil when it has no file
    /// link (a giphy, a custom payload without one, a file still being uploaded).
    public var linkedFile: (field: String, link: URL)? {
        let json = rawJSON
        let order = type == .image ? ["image_url", "image", "asset_url", "thumb_url"] : ["asset_url", "image_url", "thumb_url"]
        for field in order {
            if let link = json[field]?.stringValue.flatMap(URL.init(string:)) { return (field, link) }
        }
        return nil
    }

    /// The field holding the link to the attachment's file (see ``linkedFile``).
    public var fileLinkField: String? { linkedFile?.field }

    /// The link to the attachment's file, as sent (signed, when the CDN signs links).
    public var fileLink: URL? { linkedFile?.link }
}
