import ChatModels
import Foundation

/// One channel of a ``ChatClient``: the calls that need a channel, as Stream's channel
/// controllers offer them.
public struct ChatChannel: Sendable {
    /// The client.
    public let client: ChatClient
    /// The channel.
    public let cid: ChannelId

    /// Sends a message; local-file attachments are uploaded first.
    @discardableResult
    public func sendMessage(
        text: String = "", attachments: [AnyAttachmentPayload] = [], id: String = UUID().uuidString.lowercased(),
        extraData: [String: RawJSON] = [:], as userId: String? = nil, progress: (@Sendable (Double) -> Void)? = nil
    ) async throws -> Message {
        try await client.sendMessage(
            OutgoingMessage(id: id, text: text, attachments: attachments, extraData: extraData), to: cid, as: userId, progress: progress)
    }

    /// Uploads a local file for an attachment of `type` without sending a message (Stream's
    /// `uploadAttachment(localFileURL:type:progress:)`); checked against the upload rules first.
    public func uploadAttachment(localFileURL: URL, type: AttachmentType, progress: (@Sendable (Double) -> Void)? = nil) async throws
        -> UploadedFile
    {
        try await client.uploadAttachment(localFileURL: localFileURL, type: type, to: cid, progress: progress)
    }

    /// Deletes an uploaded file from the CDN.
    public func deleteFile(url: URL) async throws {
        try await client.deleteUpload(url: url, in: cid, isImage: false)
    }

    /// Deletes an uploaded image from the CDN.
    public func deleteImage(url: URL) async throws {
        try await client.deleteUpload(url: url, in: cid, isImage: true)
    }

    /// Gets or creates the channel, optionally watching it on an event connection.
    @discardableResult
    public func query(members: [String] = [], watch connectionId: String? = nil) async throws -> ChannelState {
        try await client.queryChannel(cid, members: members, watch: connectionId)
    }
}
