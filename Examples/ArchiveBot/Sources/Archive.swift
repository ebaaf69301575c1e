import ChatClient
import ChatModels
import Foundation
import Synchronization

/// A folder of files kept by content: each distinct file once, named by its SHA-256, and a
/// manifest (JSON lines) of every file posted, duplicates included. Files of a deleted message,
/// or taken out of a message by an edit, are forgotten again (``remove(messageId:links:)``).
public final class Archive: Sendable {
    /// One manifest line.
    public struct Entry: Sendable, Hashable, Codable {
        /// The content's SHA-256, hex.
        public var sha256: String
        /// The name it was posted with.
        public var name: String
        /// Size in bytes.
        public var size: Int64
        /// The message it came in.
        public var messageId: String
        /// The channel.
        public var cid: String
        /// Who posted it.
        public var userId: String
        /// When it was archived (RFC 3339).
        public var archivedAt: String
        /// When its message was posted (RFC 3339; absent in entries written before this was
        /// recorded), which a channel's truncation is measured against.
        public var postedAt: String?
        /// Whether the same content was already archived.
        public var duplicate: Bool
        /// Where the content is, relative to the archive folder.
        public var path: String
        /// The attachment's link without its signature, which tells its files apart when the
        /// message is edited (absent in entries written before links were recorded).
        public var link: String?

        enum CodingKeys: String, CodingKey {
            case sha256, name, size, cid, duplicate, path, link
            case messageId = "message_id", userId = "user_id", archivedAt = "archived_at", postedAt = "posted_at"
        }

        /// The entry as one manifest line, newline included.
        func manifestLine() throws -> Data {
            var line = try JSONEncoder().encode(self)
            line.append(0x0A)
            return line
        }
    }

    /// The archive folder.
    public let folder: URL
    /// Serializes changes to the folder and the manifest.
    let lock = Mutex(())

    /// An archive in `folder` (created if needed).
    public init(folder: URL) throws {
        self.folder = folder
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("files"), withIntermediateDirectories: true)
    }

    var manifestURL: URL { folder.appendingPathComponent("manifest.jsonl") }

    /// How an entry records its attachment's link: without the signature, which changes each
    /// time the message is read.
    public static func linkKey(_ link: URL) -> String { SignedLink(link).unsignedURL.absoluteString }

    /// Moves a downloaded file into the archive (or drops it when the content is already there)
    /// and records it in the manifest, with the attachment's `link` (its signature is dropped).
    @discardableResult
    public func store(
        _ downloaded: URL, name: String, messageId: String, cid: ChannelId, userId: String, link: URL? = nil, postedAt: Date? = nil
    ) throws -> Entry {
        let digest = try FileDigest.sha256(of: downloaded)
        let size = (try FileManager.default.attributesOfItem(atPath: downloaded.path)[.size] as? NSNumber)?.int64Value ?? 0
        let fileExtension = URL(fileURLWithPath: name).pathExtension.lowercased().filter { $0.isLetter || $0.isNumber }.prefix(10)
        let relative = "files/\(digest.prefix(2))/\(digest)" + (fileExtension.isEmpty ? "" : ".\(fileExtension)")
        let target = folder.appendingPathComponent(relative)
        return try lock.withLock { _ in
            let duplicate = FileManager.default.fileExists(atPath: target.path)
            if duplicate {
                try? FileManager.default.removeItem(at: downloaded)
            } else {
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try FileManager.default.moveItem(at: downloaded, to: target)
            }
            let entry = Entry(
                sha256: digest, name: name, size: size, messageId: messageId, cid: cid.rawValue, userId: userId,
                archivedAt: RFC3339.string(from: Date()), postedAt: postedAt.map(RFC3339.string(from:)), duplicate: duplicate,
                path: relative, link: link.map(Archive.linkKey))
            let line = try entry.manifestLine()
            if let handle = try? FileHandle(forWritingTo: manifestURL) {
                defer { try? handle.close() }
                try handle.seekToEnd()
                try handle.write(contentsOf: line)
            } else {
                try line.write(to: manifestURL)
            }
            return entry
        }
    }

    /// Every manifest entry, oldest first; ``ArchiveError`` naming the line when a line is not
    /// an entry.
    public func entries() throws -> [Entry] {
        guard FileManager.default.fileExists(atPath: manifestURL.path) else { return [] }
        // Foundation's Data(contentsOf:) leaks a 4 KiB buffer for each empty file it reads
        // (swift-foundation on Linux, found by LeakSanitizer), and the manifest is empty once
        // every file has left the archive. So the size is read from the opened file: a removal
        // replaces the manifest by renaming a new file over it, which leaves the opened one as
        // it was, where a size read from the path could be the old file's and the read the new,
        // empty one's (a reader racing a removal leaked so).
        let handle = try FileHandle(forReadingFrom: manifestURL)
        defer { try? handle.close() }
        guard try handle.seekToEnd() > 0 else { return [] }
        try handle.seek(toOffset: 0)
        let lines = (try handle.readToEnd() ?? Data()).split(separator: 0x0A, omittingEmptySubsequences: false)
        var entries: [Entry] = []
        for (index, line) in lines.enumerated() where !line.isEmpty {
            do {
                entries.append(try JSONDecoder().decode(Entry.self, from: Data(line)))
            } catch {
                throw ArchiveError(
                    code: .damagedManifest, message: "\(manifestURL.path) line \(index + 1) is not a manifest entry (\(error)); mend or remove that line")
            }
        }
        return entries
    }
}
