import ChatModels
import Foundation

/// Attachments made from local files: reading a file's size, type and media headers is the
/// client's work, so the wire model stays free of file I/O.
extension AnyAttachmentPayload {
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
        self.init(type: attachmentType, payload: payload, uploadingState: state)
    }

    /// A custom payload whose file is uploaded first; an `UploadedAttachmentPostProcessor` puts
    /// the uploaded URL into the payload.
    public init<P: AttachmentPayload>(localFileURL: URL, customPayload: P) throws(AttachmentFileError) {
        self.init(type: P.type, payload: customPayload, uploadingState: try AnyAttachmentPayload.inspect(localFileURL))
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
