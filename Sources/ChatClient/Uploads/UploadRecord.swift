import ChatModels
import Foundation

/// The uploads a ``DeduplicatingCDNStorage`` keeps, as saved in its record file between runs:
/// `{"version":1,"uploads":[{"sha256":…,"size":…,"file_name":…,"mime_type":…,"cid":…,
/// "is_image":…,"user_id":…,"file_url":…,"thumb_url":…,"learned":{…}}, …]}`, least recently
/// used first.
struct UploadRecord: Codable, Sendable {
    /// The format's version; a file of another version is not read.
    static let version = 1

    /// One upload: what made it the same as another, and its links.
    struct Entry: Codable, Sendable {
        var sha256: String
        var size: Int64
        var fileName: String
        var mimeType: String
        var cid: String
        var isImage: Bool
        var userId: String?
        var fileURL: URL
        var thumbURL: URL?
        var learned: JSONObject

        enum CodingKeys: String, CodingKey {
            case sha256, size, learned
            case fileName = "file_name"
            case mimeType = "mime_type"
            case cid
            case isImage = "is_image"
            case userId = "user_id"
            case fileURL = "file_url"
            case thumbURL = "thumb_url"
        }
    }

    var version = UploadRecord.version
    var uploads: [Entry]

    init(_ uploads: [(key: DeduplicatingCDNStorage.Key, upload: RecentUploads.Upload)]) {
        self.uploads = uploads.map { key, upload in
            Entry(
                sha256: key.sha256, size: key.size, fileName: key.fileName, mimeType: key.mimeType, cid: key.cid.rawValue,
                isImage: key.isImage, userId: key.userId, fileURL: upload.file.fileURL, thumbURL: upload.file.thumbnailURL,
                learned: upload.learned)
        }
    }

    /// The uploads, least recently used first; an entry whose channel id does not read is left out.
    var entries: [(key: DeduplicatingCDNStorage.Key, upload: RecentUploads.Upload)] {
        uploads.compactMap { entry in
            guard let cid = try? ChannelId(cid: entry.cid) else { return nil }
            let key = DeduplicatingCDNStorage.Key(
                sha256: entry.sha256, size: entry.size, fileName: entry.fileName, mimeType: entry.mimeType, cid: cid, isImage: entry.isImage,
                userId: entry.userId)
            return (key, RecentUploads.Upload(file: UploadedFile(fileURL: entry.fileURL, thumbnailURL: entry.thumbURL), learned: entry.learned))
        }
    }

    /// The record saved at `file`; nil when there is none. Throws a ``ChatClientError``
    /// (`misconfigured`) naming the file when it cannot be read.
    static func load(from file: URL) throws -> UploadRecord? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        do {
            let record = try JSONDecoder().decode(UploadRecord.self, from: try Data(contentsOf: file))
            guard record.version == version else {
                throw ChatClientError(code: .misconfigured, message: "version \(record.version) is not one this build reads (\(version))")
            }
            return record
        } catch let error as ChatClientError {
            throw ChatClientError(code: .misconfigured, message: "the upload record \(file.path) cannot be read: \(error.message)")
        } catch {
            let reason = error is DecodingError ? "it is not a record of uploads (\(error))" : FileErrorText.describe(error)
            throw ChatClientError(code: .misconfigured, message: "the upload record \(file.path) cannot be read: \(reason)")
        }
    }

    /// Writes it to `file` (creating its folder), replacing the one there at once.
    func save(to file: URL) throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONEncoder().encode(self).write(to: file, options: .atomic)
    }
}
