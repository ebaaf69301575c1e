import Foundation

/// An attachment to send: a ready payload, or a local file still to be uploaded.
///
/// ```swift
/// let workout = AnyAttachmentPayload(payload: WorkoutAttachmentPayload(workoutDistanceMeters: 150))
/// let photo = try AnyAttachmentPayload(localFileURL: url, attachmentType: .image)
/// let chart = try AnyAttachmentPayload(localFileURL: url, customPayload: WorkoutAttachmentPayload())
/// ```
/// For local files the size and a MIME type guessed from the extension are recorded, so upload
/// limits can be checked before a byte is sent.
public struct AnyAttachmentPayload: Sendable {
    /// The attachment type.
    public let type: AttachmentType
    /// The payload (for a local file, its URL fields point at the file until it is uploaded).
    public let payload: any AttachmentPayload
    /// The local file to upload, if any.
    public var localFileURL: URL? { uploadingState?.localFileURL }
    /// Size, MIME type and state of the local file, if any.
    public let uploadingState: AttachmentUploadingState?

    /// An attachment with a ready payload; nothing is uploaded.
    public init<P: AttachmentPayload>(payload: P) {
        self.type = P.type
        self.payload = payload
        self.uploadingState = nil
    }

    /// An attachment of `type` with `payload`, uploaded first when `uploadingState` says so
    /// (the client's local-file initializers build on it).
    package init(type: AttachmentType, payload: any AttachmentPayload, uploadingState: AttachmentUploadingState?) {
        self.type = type
        self.payload = payload
        self.uploadingState = uploadingState
    }

    /// An attachment given as its JSON object (its `type` decides the attachment type), for
    /// payloads that have no Swift type, such as one typed on a command line or forwarded as is.
    public init(json: JSONObject) {
        self.type = AttachmentType(rawValue: json["type"]?.stringValue ?? AttachmentType.unknown.rawValue)
        self.payload = RawJSONPayload(json: json)
        self.uploadingState = nil
    }

    /// The attachment object to send: `type` and the payload's fields, flat.
    public func jsonObject() throws(AttachmentFileError) -> JSONObject {
        do {
            return try encode(payload)
        } catch {
            throw AttachmentFileError(code: .encodingFailed, message: "the \(type.rawValue) payload could not be encoded: \(error)")
        }
    }

    private func encode<P: AttachmentPayload>(_ payload: P) throws -> JSONObject {
        try AttachmentEncoding.object(for: payload, type: type)
    }

    /// The type-erased attachment for position `id`, carrying the uploading state.
    public func attachment(id: AttachmentId) throws(AttachmentFileError) -> AnyChatMessageAttachment {
        AnyChatMessageAttachment(id: id, type: type, payload: JSONWriter.data(.object(try jsonObject())), uploadingState: uploadingState)
    }
}

/// A payload that is just its JSON object (see ``AnyAttachmentPayload/init(json:)``).
struct RawJSONPayload: AttachmentPayload {
    static let type = AttachmentType.unknown
    var json: JSONObject

    init(json: JSONObject) { self.json = json }
    init(from decoder: any Decoder) throws { json = try JSONObject(from: decoder) }
    func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}
