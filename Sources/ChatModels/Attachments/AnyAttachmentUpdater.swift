import Foundation

/// Updates the typed payload of a type-erased attachment in place, as in Stream's SDK:
/// ```swift
/// updater.update(&attachment, forPayload: WorkoutAttachmentPayload.self) { payload in
///     payload.imageURL = uploadedFile.fileURL
/// }
/// ```
/// It does nothing when the attachment is of another type or does not decode. Fields of the raw
/// JSON that the payload type does not model are left untouched.
public struct AnyAttachmentUpdater: Sendable {
    /// An updater.
    public init() {}

    /// Decodes the payload as `P`, lets `modifier` change it, and writes the changes back.
    /// Returns whether the attachment was updated.
    @discardableResult
    public func update<P: AttachmentPayload>(
        _ attachment: inout AnyChatMessageAttachment, forPayload payloadType: P.Type, modifier: (inout P) -> Void
    ) -> Bool {
        guard case .success(let typed) = attachment.decode(payloadType) else { return false }
        var payload = typed.payload
        modifier(&payload)
        guard payload != typed.payload,
            let before = try? AttachmentEncoding.object(for: typed.payload, type: attachment.type),
            let after = try? AttachmentEncoding.object(for: payload, type: attachment.type)
        else { return payload == typed.payload }
        var raw = attachment.rawJSON
        for key in before.keys where !after.contains(key) { raw[key] = nil }
        for (key, value) in after where before[key] != value { raw[key] = value }
        attachment.payload = JSONWriter.data(.object(raw))
        return true
    }
}
