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

    /// An attachment of a built-in type (image, video, audio, file, voiceRecording) from a local
    /// file, uploaded when the message is sent. The title is the file name; the file's own
    /// headers fill in what clients lay it out with (``MediaProbe``): an image's
    /// `original_width` and `original_height`, a video's too and its `duration`, a recording's
    /// `duration`, and a voice recording's `waveform_data` when it is a WAV file.
    public init(localFileURL: URL, attachmentType: AttachmentType, extraData: [String: RawJSON] = [:]) throws(AttachmentFileError) {
        let state = try AnyAttachmentPayload.inspect(localFileURL)
        let title = localFileURL.lastPathComponent
        let size = state.fileSize
        let mime = state.mimeType
        let payload: any AttachmentPayload
        let media = [.image, .video, .audio, .voiceRecording].contains(attachmentType)
            ? MediaProbe.probe(localFileURL, waveform: attachmentType == .voiceRecording) : .unknown
        let width = media.width.map(Double.init)
        let height = media.height.map(Double.init)
        switch attachmentType {
        case .image:
            payload = ImageAttachmentPayload(
                title: title, imageURL: localFileURL, originalWidth: width, originalHeight: height, fileSize: size, mimeType: mime,
                extraData: extraData)
        case .video:
            payload = VideoAttachmentPayload(
                title: title, videoURL: localFileURL, duration: media.duration, originalWidth: width, originalHeight: height, fileSize: size,
                mimeType: mime, extraData: extraData)
        case .audio:
            payload = AudioAttachmentPayload(
                title: title, audioURL: localFileURL, duration: media.duration, fileSize: size, mimeType: mime, extraData: extraData)
        case .file:
            payload = FileAttachmentPayload(title: title, assetURL: localFileURL, fileSize: size, mimeType: mime, extraData: extraData)
        case .voiceRecording:
            payload = VoiceRecordingAttachmentPayload(
                title: title, voiceRecordingURL: localFileURL, duration: media.duration, waveformData: media.waveform, fileSize: size,
                mimeType: mime, extraData: extraData)
        default:
            throw AttachmentFileError(
                code: .unsupportedUploadType,
                message:
                    "\(attachmentType.rawValue) has no built-in payload for a local file; use AnyAttachmentPayload(localFileURL:customPayload:)"
            )
        }
        self.type = attachmentType
        self.payload = payload
        self.uploadingState = state
    }

    /// An attachment given as its JSON object (its `type` decides the attachment type), for
    /// payloads that have no Swift type, such as one typed on a command line or forwarded as is.
    public init(json: JSONObject) {
        self.type = AttachmentType(rawValue: json["type"]?.stringValue ?? AttachmentType.unknown.rawValue)
        self.payload = RawJSONPayload(json: json)
        self.uploadingState = nil
    }

    /// A custom payload whose file is uploaded first; an `UploadedAttachmentPostProcessor` puts
    /// the uploaded URL into the payload.
    public init<P: AttachmentPayload>(localFileURL: URL, customPayload: P) throws(AttachmentFileError) {
        self.uploadingState = try AnyAttachmentPayload.inspect(localFileURL)
        self.type = P.type
        self.payload = customPayload
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

    /// Checks that `url` is a readable regular file and records its size and guessed MIME type.
    static func inspect(_ url: URL) throws(AttachmentFileError) -> AttachmentUploadingState {
        guard url.isFileURL else {
            throw AttachmentFileError(code: .fileNotFound, message: "\(url.absoluteString) is not a local file URL")
        }
        let path = url.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw AttachmentFileError(code: .fileNotFound, message: "no file at \(path)")
        }
        guard !isDirectory.boolValue else {
            throw AttachmentFileError(code: .notAFile, message: "\(path) is a folder, not a file")
        }
        guard FileManager.default.isReadableFile(atPath: path),
            let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = (attributes[.size] as? NSNumber)?.int64Value
        else {
            throw AttachmentFileError(code: .unreadable, message: "\(path) cannot be read (check its permissions)")
        }
        return AttachmentUploadingState(
            localFileURL: url, state: .pendingUpload, fileSize: size, mimeType: MIMEType.guess(for: url))
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
