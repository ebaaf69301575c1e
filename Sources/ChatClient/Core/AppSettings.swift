import ChatModels

/// The parts of the app settings a client acts on: the upload rules.
public struct AppSettings: Sendable, Hashable {
    /// Rules for `/file` uploads.
    public var fileUploadConfig: UploadConfig
    /// Rules for `/image` uploads.
    public var imageUploadConfig: UploadConfig
    /// Everything else the server sent.
    public var raw: JSONObject

    /// Reads the `app` object of `GET /app`.
    public init(json: JSONObject) {
        fileUploadConfig = UploadConfig(json: json["file_upload_config"]?.objectValue ?? [:])
        imageUploadConfig = UploadConfig(json: json["image_upload_config"]?.objectValue ?? [:])
        raw = json
    }
}

/// One upload configuration (`file_upload_config` or `image_upload_config`).
public struct UploadConfig: Sendable, Hashable {
    /// Only these extensions are accepted, when not empty (with their dot).
    public var allowedFileExtensions: [String]
    /// These extensions are refused.
    public var blockedFileExtensions: [String]
    /// Only these MIME types are accepted, when not empty (`image/*` wildcards allowed).
    public var allowedMimeTypes: [String]
    /// These MIME types are refused.
    public var blockedMimeTypes: [String]
    /// The largest file in bytes; 0 means the service default (100 MB).
    public var sizeLimit: Int64

    /// The largest file in bytes the service takes: ``sizeLimit``, or its default when 0.
    public var effectiveSizeLimit: Int64 { sizeLimit > 0 ? sizeLimit : 100 * 1024 * 1024 }

    /// Reads a configuration object.
    public init(json: JSONObject) {
        func strings(_ key: String) -> [String] { json[key]?.arrayValue?.compactMap(\.stringValue) ?? [] }
        allowedFileExtensions = strings("allowed_file_extensions")
        blockedFileExtensions = strings("blocked_file_extensions")
        allowedMimeTypes = strings("allowed_mime_types")
        blockedMimeTypes = strings("blocked_mime_types")
        sizeLimit = Int64(json["size_limit"]?.intValue ?? 0)
    }
}
