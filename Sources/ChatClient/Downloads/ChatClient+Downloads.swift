import ChatLocking
import ChatModels
import ChatTransport
import Foundation
import Tracing
import Synchronization

extension ChatClient {
    /// Downloads an attachment's file to `destination` (a temporary file by default), streaming
    /// to disk and reporting `.progress` then `.completed`.
    ///
    /// A link that is expired (by its `Expires` or `Policy`, within the refresh margin), or that
    /// the file host answers with 403, is refreshed by re-reading the message with
    /// `getMessage` — once for all concurrent downloads of that message — and the same
    /// attachment's fresh link is used.
    public func fetchAttachment(_ attachment: AnyChatMessageAttachment, to destination: URL? = nil) -> AsyncThrowingStream<
        AttachmentFetchEvent, any Error
    > {
        let (stream, continuation) = AsyncThrowingStream<AttachmentFetchEvent, any Error>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let task = Task {
            do {
                let file = try await download(attachment, to: destination) { bytes, total in
                    continuation.yield(.progress(bytes: bytes, total: total))
                }
                continuation.yield(.completed(file))
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Downloads an attachment's file and returns where it is.
    public func download(
        _ attachment: AnyChatMessageAttachment, to destination: URL? = nil, progress: (@Sendable (Int64, Int64) -> Void)? = nil
    ) async throws -> URL {
        // One span for the download, its attempts and the link refreshes (getMessage) it took.
        try await traced("DownloadFile", method: "GET", url: attachment.linkedFile?.link) { span in
            try await download(attachment, to: destination, progress: progress, span: span)
        }
    }

    private func download(
        _ attachment: AnyChatMessageAttachment, to destination: URL?, progress: (@Sendable (Int64, Int64) -> Void)?, span: any Span
    ) async throws -> URL {
        guard let (field, signedLink) = attachment.linkedFile else {
            throw ChatClientError(code: .downloadFailed, message: "attachment \(attachment.id) has no file link")
        }
        return try await downloadFile(
            from: signedLink, naming: "\(attachment.id)", isImage: attachment.type == .image, to: destination, progress: progress, span: span
        ) { [self] stale in
            try await refreshedLink(for: attachment, field: field, after: stale)
        }
    }

    /// Downloads the file at a signed link, streaming to disk: a link that is expired (within
    /// the refresh margin), or that the file host answers with 403, is replaced once by
    /// `refresh`. `name` says what the file is in errors.
    func downloadFile(
        from signedLink: URL, naming name: String, isImage: Bool = false, to destination: URL?,
        progress: (@Sendable (Int64, Int64) -> Void)?, span: any Span, refresh: (URL) async throws -> URL
    ) async throws -> URL {
        var link = signedLink
        let target = destination ?? FileManager.default.temporaryDirectory.appendingPathComponent("chatbotkit-\(UUID().uuidString)")
        if SignedLink(link).isExpired(at: Date(), margin: configuration.linkRefreshMargin.timeInterval) {
            metrics.linkRefreshed(reason: "expired")
            span.addEvent("link refreshed: expired")
            link = try await refresh(link)
        }
        var refreshed = false
        while true {
            var request = try await fileHostRequest("GET", for: link, isImage: isImage)
            request.destination = .file(target)
            request.idleTimeout = .seconds(60)
            request.progress = progress.map { report in { @Sendable transfer in report(transfer.downloaded, transfer.downloadTotal) } }
            let response: TransportResponse
            do {
                response = try await timedSend(request, operation: "DownloadFile")
                span.recordAttempt(refreshed ? 2 : 1, status: response.status)
            } catch let error as TransportError {
                try? FileManager.default.removeItem(at: target)
                throw ChatClientError(code: .downloadFailed, message: "downloading \(name) failed: \(error.message)", transportError: error)
            }
            if response.status == 403, !refreshed {
                refreshed = true
                metrics.linkRefreshed(reason: "forbidden")
                span.addEvent("link refreshed: forbidden")
                link = try await refresh(link)
                continue
            }
            guard (200...299).contains(response.status) else {
                let detail = (try? String(contentsOf: target, encoding: .utf8)).map { String($0.prefix(300)) } ?? ""
                try? FileManager.default.removeItem(at: target)
                throw ChatClientError(
                    code: .downloadFailed, message: "the file host answered HTTP \(response.status) for \(name): \(detail)",
                    httpStatus: response.status)
            }
            return target
        }
    }

    /// The fresh link of the same attachment, from one `getMessage` shared by every concurrent
    /// caller for that message; a re-read message is reused while its links are valid.
    func refreshedLink(for attachment: AnyChatMessageAttachment, field: String, after stale: URL) async throws -> URL {
        let messageId = attachment.id.messageId
        let margin = configuration.linkRefreshMargin.timeInterval
        let cached = refreshedMessages.withLock { $0.message(messageId) }
        let message: Message
        if let cached {
            message = cached
        } else {
            message = try await refreshes.run(messageId) { [self] in
                metrics.messageReread()
                let fresh = try await getMessage(messageId)
                let until = fresh.attachments.compactMap { $0.fileLink.flatMap { SignedLink($0).expiresAt } }.min() ?? Date.distantFuture
                refreshedMessages.withLock { $0.store(fresh, as: messageId, until: until.addingTimeInterval(-margin)) }
                return fresh
            }
        }
        guard attachment.id.index < message.attachments.count,
            let link = message.attachments[attachment.id.index].rawJSON[field]?.stringValue.flatMap(URL.init(string:))
        else {
            throw ChatClientError(
                code: .downloadFailed, message: "message \(messageId) no longer has attachment \(attachment.id.index); the file cannot be fetched")
        }
        // The same link back is fine while it has not actually expired: it was refreshed early
        // (inside the margin), and a server whose links live shorter than the margin signs the
        // same link again within the same second.
        guard link != stale || !SignedLink(link).isExpired() else {
            throw ChatClientError(code: .downloadFailed, message: "getMessage returned the same expired link for \(attachment.id)")
        }
        return link
    }
}

extension ChatClient {
    /// The request for `link` on its file host, as the ``CDNRequester`` makes it (rewritten URL,
    /// extra headers), for downloads and for checks that a link still works.
    func fileHostRequest(_ method: String, for link: URL, isImage: Bool) async throws -> TransportRequest {
        let cdnRequest =
            isImage
            ? try await cdnRequester.imageRequest(for: link, options: ImageRequestOptions())
            : try await cdnRequester.fileRequest(for: link, options: FileRequestOptions())
        return TransportRequest(
            method: method, url: cdnRequest.url, headers: (cdnRequest.headers ?? [:]).map { ($0.key, $0.value) }.sorted { $0.0 < $1.0 })
    }
}
