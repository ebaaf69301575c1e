import ChatModels
import ChatTransport
import Foundation
import Tracing

/// The first bytes of a file and how large all of it is: what a type sniffer needs (libmagic
/// reads at most about 1 MB), without fetching the rest of a large file.
public struct FileHead: Sendable, Equatable {
    /// The file's first bytes (all of it when it is smaller than asked).
    public let bytes: Data
    /// The whole file's size, when the host said (`Content-Range`, or the length of a whole
    /// file it sent).
    public let totalSize: Int64?
}

extension ChatClient {
    /// The first `length` bytes of an attachment's file, read with an HTTP range request
    /// (`Range: bytes=0-…`); a host that ignores it is read only that far. As
    /// ``download(_:to:progress:)``, a link that is expired (within the refresh margin), or that
    /// the host answers with 403, is refreshed once by re-reading the message.
    public func downloadHead(of attachment: AnyChatMessageAttachment, length: Int = 1 << 20) async throws -> FileHead {
        guard let (field, signedLink) = attachment.linkedFile else {
            throw ChatClientError(code: .downloadFailed, message: "attachment \(attachment.id) has no file link")
        }
        return try await traced("DownloadFileHead", method: "GET", url: signedLink) { span in
            try await readHead(from: signedLink, naming: "\(attachment.id)", isImage: attachment.type == .image, length: length, span: span) {
                [self] stale in
                try await refreshedLink(for: attachment, field: field, after: stale)
            }
        }
    }

    /// The first `length` bytes at a signed link; an expired link, or a 403, is replaced once by
    /// `refresh`. `name` says what the file is in errors.
    func readHead(
        from signedLink: URL, naming name: String, isImage: Bool, length: Int, span: any Span, refresh: (URL) async throws -> URL
    ) async throws -> FileHead {
        precondition(length > 0, "a file head is at least one byte")
        var link = signedLink
        if SignedLink(link).isExpired(at: Date(), margin: configuration.linkRefreshMargin.timeInterval) {
            metrics.linkRefreshed(reason: "expired")
            span.addEvent("link refreshed: expired")
            do {
                link = try await refresh(link)
            } catch {
                // Renewed early, inside the margin, and it could not be (a message not stored
                // yet, which a before-send hook reads): while the link works, it is used.
                guard !SignedLink(link).isExpired() else {
                    throw ChatClientError(code: .downloadFailed, message: "the link of \(name) expired, and it could not be renewed: \(error)")
                }
            }
        }
        var refreshed = false
        while true {
            var request = try await fileHostRequest("GET", for: link, isImage: isImage)
            request.headers.append(("Range", "bytes=0-\(length - 1)"))
            request.destination = .head(limit: length)
            let response: TransportResponse
            do {
                response = try await timedSend(request, operation: "DownloadFileHead")
                span.recordAttempt(refreshed ? 2 : 1, status: response.status)
            } catch let error as TransportError {
                throw ChatClientError(code: .downloadFailed, message: "reading \(name) failed: \(error.message)", transportError: error)
            }
            if response.status == 403, !refreshed {
                refreshed = true
                metrics.linkRefreshed(reason: "forbidden")
                span.addEvent("link refreshed: forbidden")
                do {
                    link = try await refresh(link)
                } catch {
                    // The host's refusal is what went wrong, not the re-read's answer (a 404 for
                    // a message not stored yet would say the file is gone).
                    throw ChatClientError(
                        code: .downloadFailed, message: "the file host refused the link of \(name) (HTTP 403), and it could not be renewed: \(error)",
                        httpStatus: 403)
                }
                continue
            }
            switch response.status {
            case 206:
                return FileHead(bytes: response.body, totalSize: Self.rangeTotal(response.header("content-range")))
            case 200:
                // The whole file came (or its first `length` bytes, and the rest was not read).
                let whole = response.header("content-length").flatMap { Int64($0) }
                return FileHead(bytes: response.body, totalSize: whole ?? (response.body.count < length ? Int64(response.body.count) : nil))
            case 416:
                // Nothing at byte 0: an empty file.
                return FileHead(bytes: Data(), totalSize: Self.rangeTotal(response.header("content-range")) ?? 0)
            default:
                let detail = String(decoding: response.body.prefix(300), as: UTF8.self)
                throw ChatClientError(
                    code: .downloadFailed, message: "the file host answered HTTP \(response.status) for \(name): \(detail)", httpStatus: response.status)
            }
        }
    }

    /// The total of `Content-Range: bytes 0-1048575/94371840` (nil for `*` or a malformed one).
    static func rangeTotal(_ header: String?) -> Int64? {
        guard let header, let slash = header.lastIndex(of: "/") else { return nil }
        return Int64(header[header.index(after: slash)...].trimmingCharacters(in: .whitespaces))
    }
}
