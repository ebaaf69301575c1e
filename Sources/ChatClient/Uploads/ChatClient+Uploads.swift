import ChatLocking
import ChatModels
import Foundation

extension ChatClient {
    /// Uploads a local file for an attachment of `type` to `cid` (no message is sent).
    public func uploadAttachment(
        localFileURL: URL, type: AttachmentType, to cid: ChannelId, as userId: String? = nil, progress: (@Sendable (Double) -> Void)? = nil
    ) async throws -> UploadedFile {
        try UploadPreflight(settings: try await appSettings(), maximumUploadSize: configuration.maximumUploadSize)
            .check(localFileURL, type: type)
        let options = AttachmentUploadOptions(
            client: self, cid: cid, type: type, userId: try actingUser(userId, operation: "Upload"), progress: progress)
        return try await cdnStorage.uploadAttachment(localUrl: localFileURL, options: options)
    }

    /// Deletes an uploaded file or image.
    public func deleteUpload(url: URL, in cid: ChannelId, isImage: Bool) async throws {
        try await cdnStorage.deleteAttachment(remoteUrl: url, options: AttachmentDeleteOptions(client: self, cid: cid, isImage: isImage))
    }

    /// Checks every local file of `message` first, then uploads them one after the other, and
    /// returns the attachment objects to send.
    func uploadLocalFiles(of message: OutgoingMessage, in cid: ChannelId, as userId: String?, progress: (@Sendable (Double) -> Void)?)
        async throws -> [JSONObject]
    {
        let local = message.attachments.compactMap(\.uploadingState)
        if !local.isEmpty {
            let preflight = UploadPreflight(settings: try await appSettings(), maximumUploadSize: configuration.maximumUploadSize)
            for (index, attachment) in message.attachments.enumerated() {
                guard let state = attachment.uploadingState else { continue }
                do {
                    try preflight.check(state.localFileURL, mimeType: state.mimeType, type: attachment.type)
                } catch let error as ChatClientError {
                    throw ChatClientError(code: error.code, message: "attachment \(index): \(error.message)")
                }
            }
        }
        let totalBytes = max(1, local.reduce(Int64(0)) { $0 + $1.fileSize })
        let doneBytes = Locked<Int64>(0)
        var objects: [JSONObject] = []
        for (index, attachment) in message.attachments.enumerated() {
            let id = AttachmentId(cid: cid, messageId: message.id, index: index)
            guard let state = attachment.uploadingState else {
                objects.append(try attachment.jsonObject())
                continue
            }
            let before = doneBytes.withLock { $0 }
            let options = AttachmentUploadOptions(
                client: self, cid: cid, type: attachment.type, userId: userId,
                progress: progress.map { report in
                    { @Sendable fraction in report(min(1, (Double(before) + fraction * Double(state.fileSize)) / Double(totalBytes))) }
                })
            let uploaded = try await cdnStorage.uploadAttachment(try attachment.attachment(id: id), options: options)
            doneBytes.withLock { $0 += state.fileSize }
            let plain = try attachment.attachment(id: id)
            var result = UploadedAttachment(
                attachment: ChatClient.pointing(uploaded.attachment ?? plain, to: uploaded),
                remoteURL: uploaded.fileURL, thumbnailURL: uploaded.thumbnailURL)
            if let postProcessor = uploadedAttachmentPostProcessor { result = postProcessor.process(uploadedAttachment: result) }
            objects.append(result.attachment.rawJSON)
        }
        if !local.isEmpty { progress?(1) }
        return objects
    }

    /// The attachment with its built-in URL fields set to the uploaded file (`image_url` for
    /// images, `asset_url` otherwise, `thumb_url` when there is a thumbnail), as Stream's SDK does.
    static func pointing(_ attachment: AnyChatMessageAttachment, to file: UploadedFile) -> AnyChatMessageAttachment {
        var json = attachment.rawJSON
        switch attachment.type {
        case .image:
            json["image_url"] = .string(file.fileURL.absoluteString)
            if let thumbnail = file.thumbnailURL { json["thumb_url"] = .string(thumbnail.absoluteString) }
        case .video:
            json["asset_url"] = .string(file.fileURL.absoluteString)
            if let thumbnail = file.thumbnailURL { json["thumb_url"] = .string(thumbnail.absoluteString) }
        case .audio, .file, .voiceRecording:
            json["asset_url"] = .string(file.fileURL.absoluteString)
        default:
            break
        }
        var updated = AnyChatMessageAttachment(id: attachment.id, json: json)
        updated.uploadingState = attachment.uploadingState.map { state in
            var uploaded = state
            uploaded.state = .uploaded
            return uploaded
        }
        return updated
    }
}
