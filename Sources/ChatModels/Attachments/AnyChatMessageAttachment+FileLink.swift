import Foundation

extension ChatMessageAttachment where Payload == Data {
    /// The field holding the link to the attachment's file: `image_url` (or `image`) first for
    /// images, `asset_url` first otherwise, `thumb_url` last; nil when it has no file link
    /// (a giphy, a custom payload without one, a file still being uploaded).
    public var fileLinkField: String? {
        let json = rawJSON
        let order = type == .image ? ["image_url", "image", "asset_url", "thumb_url"] : ["asset_url", "image_url", "thumb_url"]
        return order.first { json[$0]?.stringValue.flatMap(URL.init(string:)) != nil }
    }

    /// The link to the attachment's file, as sent (signed, when the CDN signs links).
    public var fileLink: URL? {
        fileLinkField.flatMap { rawJSON[$0]?.stringValue }.flatMap(URL.init(string:))
    }
}
