import ChatModels
import Foundation

/// Where attachment files are uploaded and deleted, as in Stream's SDK (async instead of
/// completion handlers). The default, ``StreamCDNStorage``, uses the chat API's own CDN.
public protocol CDNStorage: Sendable {
    /// Uploads the local file of a message attachment (`attachment.uploadingState.localFileURL`).
    func uploadAttachment(_ attachment: AnyChatMessageAttachment, options: AttachmentUploadOptions) async throws -> UploadedFile
    /// Uploads a file that belongs to no message.
    func uploadAttachment(localUrl: URL, options: AttachmentUploadOptions) async throws -> UploadedFile
    /// Deletes an uploaded file.
    func deleteAttachment(remoteUrl: URL, options: AttachmentDeleteOptions) async throws
}

/// What an upload needs beside the file.
public struct AttachmentUploadOptions: Sendable {
    /// The client making the upload.
    public var client: ChatClient
    /// The channel the file belongs to.
    public var cid: ChannelId
    /// The attachment type (decides image or file storage).
    public var type: AttachmentType
    /// The uploading user (for server-side uploads).
    public var userId: String?
    /// Fraction done, 0...1, reported as bytes move.
    public var progress: (@Sendable (Double) -> Void)?

    /// Options.
    public init(client: ChatClient, cid: ChannelId, type: AttachmentType, userId: String? = nil, progress: (@Sendable (Double) -> Void)? = nil) {
        self.client = client
        self.cid = cid
        self.type = type
        self.userId = userId
        self.progress = progress
    }
}

/// What a deletion needs beside the link.
public struct AttachmentDeleteOptions: Sendable {
    /// The client.
    public var client: ChatClient
    /// The channel the file belongs to.
    public var cid: ChannelId
    /// Whether it was uploaded as an image.
    public var isImage: Bool

    /// Options.
    public init(client: ChatClient, cid: ChannelId, isImage: Bool) {
        self.client = client
        self.cid = cid
        self.isImage = isImage
    }
}

/// An uploaded file: its link, a thumbnail when the storage made one, and (for message
/// attachments) the attachment updated with whatever the storage learned.
public struct UploadedFile: Sendable {
    /// The file's link.
    public var fileURL: URL
    /// A thumbnail or poster frame.
    public var thumbnailURL: URL?
    /// The attachment, updated by the storage (for example with dimensions it measured).
    public var attachment: AnyChatMessageAttachment?

    /// An uploaded file.
    public init(fileURL: URL, thumbnailURL: URL? = nil, attachment: AnyChatMessageAttachment? = nil) {
        self.fileURL = fileURL
        self.thumbnailURL = thumbnailURL
        self.attachment = attachment
    }
}

/// An attachment whose file was uploaded, before its message is sent.
public struct UploadedAttachment: Sendable {
    /// The attachment (built-in payloads already point at `remoteURL`).
    public var attachment: AnyChatMessageAttachment
    /// The file's link.
    public var remoteURL: URL
    /// The thumbnail's link, if any.
    public var thumbnailURL: URL?

    /// An uploaded attachment.
    public init(attachment: AnyChatMessageAttachment, remoteURL: URL, thumbnailURL: URL? = nil) {
        self.attachment = attachment
        self.remoteURL = remoteURL
        self.thumbnailURL = thumbnailURL
    }
}

/// Fills a custom payload in once its file is uploaded, as in Stream's SDK:
/// ```swift
/// struct WorkoutImages: UploadedAttachmentPostProcessor {
///     func process(uploadedAttachment: UploadedAttachment) -> UploadedAttachment {
///         var attachment = uploadedAttachment.attachment
///         AnyAttachmentUpdater().update(&attachment, forPayload: WorkoutAttachmentPayload.self) { payload in
///             payload.imageURL = uploadedAttachment.remoteURL
///         }
///         return UploadedAttachment(attachment: attachment, remoteURL: uploadedAttachment.remoteURL)
///     }
/// }
/// ```
public protocol UploadedAttachmentPostProcessor: Sendable {
    /// The attachment to send, given the uploaded one.
    func process(uploadedAttachment: UploadedAttachment) -> UploadedAttachment
}
