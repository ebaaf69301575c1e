import Foundation

/// MIME types guessed from file extensions: what the chat API and its clients compare against
/// upload rules. It trusts the name; judge the real bytes with `FileSniffing` where it matters.
public enum MIMEType {
    /// The fallback for unknown extensions.
    public static let octetStream = "application/octet-stream"

    static let byExtension: [String: String] = [
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "bmp": "image/bmp", "heic": "image/heic", "heif": "image/heif", "svg": "image/svg+xml", "tif": "image/tiff",
        "tiff": "image/tiff", "ico": "image/x-icon",
        "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm", "mkv": "video/x-matroska",
        "avi": "video/x-msvideo",
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac", "wav": "audio/wav", "ogg": "audio/ogg",
        "oga": "audio/ogg", "opus": "audio/opus", "flac": "audio/flac",
        "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip", "tar": "application/x-tar",
        "7z": "application/x-7z-compressed", "rar": "application/vnd.rar", "json": "application/json",
        "xml": "application/xml", "txt": "text/plain", "md": "text/markdown", "csv": "text/csv", "html": "text/html",
        "htm": "text/html", "css": "text/css", "js": "text/javascript", "ics": "text/calendar",
        "doc": "application/msword", "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel", "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "exe": "application/x-msdownload", "dll": "application/x-msdownload", "msi": "application/x-msi",
        "sh": "application/x-sh", "bat": "application/x-bat", "apk": "application/vnd.android.package-archive",
        "gpx": "application/gpx+xml", "fit": "application/vnd.ant.fit",
    ]

    /// The MIME type for a file extension (with or without the dot, any case).
    public static func guess(forPathExtension pathExtension: String) -> String {
        var key = pathExtension.lowercased()
        if key.hasPrefix(".") { key.removeFirst() }
        return byExtension[key] ?? octetStream
    }

    /// The MIME type for a file's name.
    public static func guess(for url: URL) -> String {
        guess(forPathExtension: url.pathExtension)
    }

    /// Whether `mimeType` matches `pattern`, where a pattern may end in `/*` (`image/*`).
    /// Parameters such as `; charset=utf-8` are ignored; comparison is case-insensitive.
    public static func matches(_ mimeType: String, pattern: String) -> Bool {
        let type = essence(of: mimeType)
        let wanted = essence(of: pattern)
        if wanted == "*/*" || wanted == "*" { return true }
        if wanted.hasSuffix("/*") { return type.hasPrefix(String(wanted.dropLast(1))) }
        return type == wanted
    }

    /// The type without parameters, lower-cased (`text/plain; charset=utf-8` → `text/plain`).
    public static func essence(of mimeType: String) -> String {
        let base = mimeType.split(separator: ";", maxSplits: 1).first.map(String.init) ?? mimeType
        return base.trimmingCharacters(in: .whitespaces).lowercased()
    }
}
