import Foundation

/// The upload state of an attachment that starts as a local file.
public struct AttachmentUploadingState: Hashable, Sendable {
    /// Where the upload stands.
    public enum State: Hashable, Sendable {
        /// Not started.
        case pendingUpload
        /// In progress; the fraction done, 0...1.
        case uploading(progress: Double)
        /// Done; the attachment now carries its remote URL.
        case uploaded
        /// Failed; the message is not sent.
        case uploadingFailed
    }

    /// The local file.
    public var localFileURL: URL
    /// The state.
    public var state: State
    /// The file's size in bytes when it was attached.
    public var fileSize: Int64
    /// The MIME type guessed from the file's extension.
    public var mimeType: String

    /// An uploading state.
    public init(localFileURL: URL, state: State, fileSize: Int64, mimeType: String) {
        self.localFileURL = localFileURL
        self.state = state
        self.fileSize = fileSize
        self.mimeType = mimeType
    }
}
