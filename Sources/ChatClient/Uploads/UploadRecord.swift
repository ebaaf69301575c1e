import ChatModels
import Foundation

/// The uploads a ``DeduplicatingCDNStorage`` keeps, as saved in its record file between runs:
/// `{"version":1,"uploads":[{"sha256":…,"size":…,"file_name":…,"mime_type":…,"cid":…,
/// "is_image":…,"user_id":…,"file_url":…,"thumb_url":…,"learned":{…}}, …]}`, least recently
/// used first.
struct UploadRecord: Codable, Sendable {
    /// The format's version; a file of another version is not read.
    static let version = 1

    /// One upload: what made it the same as another (its ``DeduplicatingCDNStorage/Key``'s
    /// fields), and its links.
    struct Entry: Codable, Sendable {
        var key: DeduplicatingCDNStorage.Key
        var upload: RecentUploads.Upload

        private enum CodingKeys: String, CodingKey {
            case learned
            case fileURL = "file_url"
            case thumbURL = "thumb_url"
        }

        init(key: DeduplicatingCDNStorage.Key, upload: RecentUploads.Upload) {
            self.key = key
            self.upload = upload
        }

        /// The key's fields and the links, side by side in one object.
        init(from decoder: any Decoder) throws {
            key = try DeduplicatingCDNStorage.Key(from: decoder)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let file = UploadedFile(
                fileURL: try container.decode(URL.self, forKey: .fileURL), thumbnailURL: try container.decodeIfPresent(URL.self, forKey: .thumbURL))
            upload = RecentUploads.Upload(file: file, learned: try container.decode(JSONObject.self, forKey: .learned))
        }

        func encode(to encoder: any Encoder) throws {
            try key.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(upload.file.fileURL, forKey: .fileURL)
            try container.encodeIfPresent(upload.file.thumbnailURL, forKey: .thumbURL)
            try container.encode(upload.learned, forKey: .learned)
        }
    }

    var version = UploadRecord.version
    var uploads: [Entry]

    init(_ uploads: [(key: DeduplicatingCDNStorage.Key, upload: RecentUploads.Upload)]) {
        self.uploads = uploads.map { Entry(key: $0.key, upload: $0.upload) }
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
        try StateFile.write(try JSONEncoder().encode(self), to: file)
    }
}
