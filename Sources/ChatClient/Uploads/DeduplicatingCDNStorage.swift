import ChatLocking
import ChatModels
import ChatTransport
import Foundation
import Logging

/// An upload as `SingleFlight` hands it to everyone waiting for it.
struct UploadInFlight: Sendable {
    var file: UploadedFile
    var learned: JSONObject
}

/// A ``CDNStorage`` that uploads identical content once: a file whose bytes, name, MIME type,
/// channel, uploader and kind (image or file) match an earlier upload gets that upload's link
/// back instead of being sent again. Every other call goes to the storage it wraps.
///
/// ```swift
/// let client = ChatClient(configuration: configuration, cdnStorage: DeduplicatingCDNStorage())
/// ```
///
/// A link is reused only while its signature stays valid for `minimumRemainingLifetime`, and
/// (with `checksLinks`) after a `HEAD` request shows the file is still there: a file deleted by
/// someone else, or by a hard-deleted message, is uploaded again rather than linked dead.
/// Deleting through this storage forgets the link at once. Two uploads of the same content at
/// the same time make one upload. A file is read for its SHA-256 again only when it changed
/// (path, size, modification time or inode) since it was last read.
///
/// With a `recordFile`, the links are kept between runs: a restarted bot links what it uploaded
/// before instead of uploading it again (still only while the link works).
///
/// Messages that share an upload share its file: deleting the file (``ChatClient/deleteUpload(url:in:isImage:)``)
/// takes it from all of them, which is why this is not the default storage.
public final class DeduplicatingCDNStorage: CDNStorage {
    /// What makes two uploads the same (as a record file writes it, too).
    struct Key: Hashable, Sendable, Codable {
        var sha256: String
        var size: Int64
        var fileName: String
        var mimeType: String
        var cid: ChannelId
        var isImage: Bool
        var userId: String?

        private enum CodingKeys: String, CodingKey {
            case sha256, size, cid
            case fileName = "file_name"
            case mimeType = "mime_type"
            case isImage = "is_image"
            case userId = "user_id"
        }
    }

    /// The storage that really uploads.
    public let base: any CDNStorage
    /// How many links are kept (the least recently used go first).
    public let capacity: Int
    /// How long a link's signature must still be valid to be reused.
    public let minimumRemainingLifetime: Duration
    /// Whether a link is checked with a `HEAD` request before it is reused.
    public let checksLinks: Bool
    /// The JSON file the links are kept in between runs (read at the first upload, written
    /// after each change); nil keeps them in memory only.
    public let recordFile: URL?

    private let links = Locked(RecentUploads())
    private let hashedFiles: Locked<HashedFiles>
    private let uploads = SingleFlight<Key, UploadInFlight>()
    /// Whether the record file was read, and whether writing it fails (said once). Held while
    /// the file is read or written, so that writes land in the order their snapshots were taken.
    private let record = Locked(RecordFileState())

    /// A storage uploading through `base` (the chat API's CDN by default) that keeps up to
    /// `capacity` links, reuses one while its signature has `minimumRemainingLifetime` left,
    /// and (with `checksLinks`) only once a `HEAD` request finds its file; with a `recordFile`,
    /// the links are kept there between runs.
    public init(
        base: any CDNStorage = StreamCDNStorage(), capacity: Int = 1024, minimumRemainingLifetime: Duration = .seconds(3600),
        checksLinks: Bool = true, recordFile: URL? = nil
    ) {
        self.base = base
        self.capacity = max(1, capacity)
        self.minimumRemainingLifetime = minimumRemainingLifetime
        self.checksLinks = checksLinks
        self.recordFile = recordFile
        hashedFiles = Locked(HashedFiles(capacity: self.capacity))
    }

    /// Uploads the attachment's local file, or returns the link of the same content uploaded before.
    public func uploadAttachment(_ attachment: AnyChatMessageAttachment, options: AttachmentUploadOptions) async throws -> UploadedFile {
        guard let state = attachment.uploadingState else { return try await base.uploadAttachment(attachment, options: options) }
        let key = try key(of: state.localFileURL, mimeType: state.mimeType, options: options)
        // Whether this call made the upload: one reused, or joined while another call made
        // it, was made for another attachment.
        let madeHere = Locked(false)
        let (file, learned) = try await upload(key, options: options) {
            madeHere.withLock { $0 = true }
            let file = try await self.base.uploadAttachment(attachment, options: options)
            return (file, Self.fieldsLearned(by: file, from: attachment))
        }
        guard !madeHere.withLock({ $0 }) else { return file }
        // This attachment gets the link, and what the storage learned of the file then
        // (dimensions, say), but keeps its own id and fields.
        var reused = attachment
        if !learned.isEmpty {
            var json = attachment.rawJSON
            for (key, value) in learned { json[key] = value }
            reused = AnyChatMessageAttachment(id: attachment.id, json: json)
            reused.uploadingState = attachment.uploadingState
        }
        return UploadedFile(fileURL: file.fileURL, thumbnailURL: file.thumbnailURL, attachment: reused)
    }

    /// Uploads a local file, or returns the link of the same content uploaded before.
    public func uploadAttachment(localUrl: URL, options: AttachmentUploadOptions) async throws -> UploadedFile {
        let key = try key(of: localUrl, mimeType: MIMEType.guess(for: localUrl), options: options)
        let (file, _) = try await upload(key, options: options) {
            (try await self.base.uploadAttachment(localUrl: localUrl, options: options), JSONObject())
        }
        return UploadedFile(fileURL: file.fileURL, thumbnailURL: file.thumbnailURL)
    }

    /// Deletes the file and forgets its link, so the same content is uploaded again next time.
    public func deleteAttachment(remoteUrl: URL, options: AttachmentDeleteOptions) async throws {
        try await base.deleteAttachment(remoteUrl: remoteUrl, options: options)
        readRecordIfNeeded(logger: options.client.logger)
        let file = SignedLink(remoteUrl).unsignedURL
        let before = count
        links.withLock { $0.forget(where: { SignedLink($0.file.fileURL).unsignedURL == file }) }
        if count != before { writeRecord(logger: options.client.logger) }
    }

    /// How many links it keeps now.
    public var count: Int { links.withLock { $0.count } }

    /// The upload of `key`'s content: a kept one that may be reused, else the one under way
    /// for it, else a new one, which `uploadNew` makes and which is kept.
    private func upload(
        _ key: Key, options: AttachmentUploadOptions, _ uploadNew: @escaping @Sendable () async throws -> (UploadedFile, JSONObject)
    ) async throws -> (file: UploadedFile, learned: JSONObject) {
        let kind = key.isImage ? "image" : "file"
        let metrics = options.client.metrics
        let logger = options.client.logger
        readRecordIfNeeded(logger: logger)
        if let known = links.withLock({ $0.use(key) }) {
            if let reason = await reasonNotToReuse(known.file, options: options) {
                links.withLock { $0.forget(key) }
                writeRecord(logger: logger)
                metrics.uploadReuse(kind: kind, outcome: reason, bytes: 0)
            } else {
                metrics.uploadReuse(kind: kind, outcome: "reused", bytes: key.size)
                options.progress?(1)
                return (known.file, known.learned)
            }
        }
        let capacity = self.capacity
        let upload = try await uploads.run(key) {
            let (file, learned) = try await uploadNew()
            let kept = RecentUploads.Upload(file: UploadedFile(fileURL: file.fileURL, thumbnailURL: file.thumbnailURL), learned: learned)
            self.links.withLock { $0.remember(kept, for: key, capacity: capacity) }
            self.writeRecord(logger: logger)
            return UploadInFlight(file: file, learned: learned)
        }
        // A caller that joined another's upload of the same content saw none of its progress.
        options.progress?(1)
        return (upload.file, upload.learned)
    }

    /// The fields `file.attachment` has that `attachment` had not, or had with another value.
    static func fieldsLearned(by file: UploadedFile, from attachment: AnyChatMessageAttachment) -> JSONObject {
        guard let uploaded = file.attachment?.rawJSON else { return JSONObject() }
        let before = attachment.rawJSON
        return JSONObject(uploaded.filter { before[$0.key] != $0.value }.map { ($0.key, $0.value) })
    }

    /// Why `file`'s link should not be reused (`expiring`, `gone`), or nil when it may be.
    private func reasonNotToReuse(_ file: UploadedFile, options: AttachmentUploadOptions) async -> String? {
        let margin = minimumRemainingLifetime.timeInterval
        let links = [file.fileURL] + (file.thumbnailURL.map { [$0] } ?? [])
        if links.contains(where: { SignedLink($0).isExpired(at: Date(), margin: margin) }) { return "expiring" }
        guard checksLinks else { return nil }
        return await Self.isThere(file.fileURL, isImage: options.type == .image, client: options.client) ? nil : "gone"
    }

    /// Whether the file host answers a `HEAD` request for `link` with a 2xx status.
    static func isThere(_ link: URL, isImage: Bool, client: ChatClient) async -> Bool {
        do {
            var request = try await client.fileHostRequest("HEAD", for: link, isImage: isImage)
            request.destination = .memory(limit: 0)
            let response = try await client.timedSend(request, operation: "CheckUpload")
            return (200..<300).contains(response.status)
        } catch {
            return false
        }
    }

    /// What makes an upload of `file` the same as another: its content's SHA-256 (read again
    /// only when the file changed since it was last read), name, MIME type and destination.
    func key(of file: URL, mimeType: String, options: AttachmentUploadOptions) throws -> Key {
        let stamp: FileStamp
        let sha256: String
        do {
            stamp = FileStamp(attributes: try FileManager.default.attributesOfItem(atPath: file.path))
            if let known = hashedFiles.withLock({ $0.digest(of: file.path, stamped: stamp) }) {
                sha256 = known
            } else {
                let readAt = Date()
                sha256 = try FileDigest.sha256(of: file)
                if stamp.isSettled(at: readAt), FileStamp(attributes: try FileManager.default.attributesOfItem(atPath: file.path)) == stamp {
                    hashedFiles.withLock { $0.remember(sha256, of: file.path, stamped: stamp) }
                }
            }
        } catch {
            throw ChatClientError(code: .uploadRejected, message: "cannot read \(file.path) to upload it: \(error.localizedDescription)")
        }
        return Key(
            sha256: sha256, size: Int64(stamp.size ?? 0), fileName: file.lastPathComponent, mimeType: mimeType, cid: options.cid,
            isImage: options.type == .image, userId: options.userId)
    }

    /// Reads the record file once, at the first upload or deletion: its links are kept as if
    /// uploaded in this run. One that cannot be read is moved aside (`<file>.unreadable`),
    /// said in the log, and the storage starts empty.
    private func readRecordIfNeeded(logger: Logger) {
        guard let recordFile else { return }
        record.withLock { state in
            guard !state.isRead else { return }
            state.isRead = true
            do {
                guard let saved = try UploadRecord.load(from: recordFile) else { return }
                let capacity = self.capacity
                links.withLock { links in
                    for entry in saved.uploads { links.remember(entry.upload, for: entry.key, capacity: capacity) }
                }
            } catch {
                let aside = StateFile.setAside(recordFile)
                logger.warning("\(error)\(aside.map { "; it is kept as \($0.lastPathComponent), and files are uploaded again" } ?? "")")
            }
        }
    }

    /// Writes the links kept now to the record file; a failure is logged once until a write
    /// works again, and the links stay in memory.
    private func writeRecord(logger: Logger) {
        guard let recordFile else { return }
        record.withLock { state in
            do {
                try UploadRecord(links.withLock { $0.leastRecentlyUsedFirst }).save(to: recordFile)
                state.isFailing = false
            } catch {
                if !state.isFailing {
                    logger.warning("The upload record \(recordFile.path) cannot be written: \(FileErrorText.describe(error)); links are kept in memory only")
                }
                state.isFailing = true
            }
        }
    }
}

/// Whether a ``DeduplicatingCDNStorage`` read its record file, and whether writing it fails.
struct RecordFileState: Sendable {
    var isRead = false
    var isFailing = false
}
