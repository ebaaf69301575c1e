import ChatModels
import ChatTransport
import Foundation

/// Uploads through the chat API: `/channels/{type}/{id}/image` for images, `/file` for
/// everything else, streamed from disk with progress; retried (re-reading the file) after a 429
/// or a 5xx.
public struct StreamCDNStorage: CDNStorage {
    /// The default storage.
    public init() {}

    /// Uploads the attachment's local file.
    public func uploadAttachment(_ attachment: AnyChatMessageAttachment, options: AttachmentUploadOptions) async throws -> UploadedFile {
        guard let state = attachment.uploadingState else {
            throw ChatClientError(code: .uploadRejected, message: "attachment \(attachment.id) has no local file to upload")
        }
        var file = try await upload(state.localFileURL, mimeType: state.mimeType, options: options)
        file.attachment = attachment
        return file
    }

    /// Uploads a local file.
    public func uploadAttachment(localUrl: URL, options: AttachmentUploadOptions) async throws -> UploadedFile {
        try await upload(localUrl, mimeType: MIMEType.guess(for: localUrl), options: options)
    }

    /// Deletes a file or image from the channel's storage.
    public func deleteAttachment(remoteUrl: URL, options: AttachmentDeleteOptions) async throws {
        let path = Endpoint.channelPath(options.cid) + (options.isImage ? "/image" : "/file")
        _ = try await options.client.perform(.delete(path, query: [("url", remoteUrl.absoluteString)], operation: options.isImage ? "DeleteImage" : "DeleteFile"))
    }

    private func upload(_ file: URL, mimeType: String, options: AttachmentUploadOptions) async throws -> UploadedFile {
        let isImage = options.type == .image
        let client = options.client
        let operation = isImage ? "UploadImage" : "UploadFile"
        var parts: [MultipartPart] = []
        if let user = options.userId { parts.append(MultipartPart(name: "user", content: .data(JSONWriter.data(["id": .string(user)])))) }
        parts.append(MultipartPart(name: "file", filename: file.lastPathComponent, contentType: mimeType, content: .file(file)))
        let endpoint = Endpoint(
            method: "POST", path: Endpoint.channelPath(options.cid) + (isImage ? "/image" : "/file"), isIdempotent: true, operation: operation)
        var request = try client.transportRequest(for: endpoint)
        request.body = .multipart(parts)
        request.idleTimeout = .seconds(60)
        let progress = options.progress
        request.progress = { transfer in
            guard let progress, transfer.uploadTotal > 0 else { return }
            progress(min(1, Double(transfer.uploaded) / Double(transfer.uploadTotal)))
        }
        let kind = isImage ? "image" : "file"
        let start = ContinuousClock.now
        let response: JSONObject
        do {
            // The same request each attempt: its body, the file, is simply read again. A timeout
            // is not retried, unlike other calls: it would send a large file all over again.
            response = try await client.send(endpoint, retryingOn: [.connectionLost, .connectionFailed]) { request }
        } catch {
            client.metrics.uploadFinished(kind: kind, bytes: nil, duration: ContinuousClock.now - start)
            throw error
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value ?? 0
        client.metrics.uploadFinished(kind: kind, bytes: size, duration: ContinuousClock.now - start)
        guard let link = response["file"]?.stringValue, let url = URL(string: link) else {
            throw ChatClientError(code: .invalidResponse, message: "\(operation) answered without a file link")
        }
        return UploadedFile(fileURL: url, thumbnailURL: response["thumb_url"]?.stringValue.flatMap(URL.init(string:)))
    }
}
