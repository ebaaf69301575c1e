import ChatModels
import Foundation

/// The app settings `GET /app` reports and `PATCH /app` changes: the two upload configurations
/// plus any other setting a client stores (kept and echoed as sent).
struct AppSettings: Sendable {
    var fileUploadConfig: UploadRules
    var imageUploadConfig: UploadRules
    /// `async_url_enrich_enabled`: link previews are added after the send is answered.
    var asyncURLEnrichment = false
    var other: JSONObject

    static let imageMimeTypes = [
        "image/bmp", "image/gif", "image/jpeg", "image/png", "image/webp", "image/heic", "image/heic-sequence", "image/heif",
        "image/heif-sequence", "image/svg+xml",
    ]

    /// The `app` object of `GET /app`.
    func json(name: String) -> JSONObject {
        var object: JSONObject = [
            "name": .string(name),
            "file_upload_config": .object(AppSettings.json(fileUploadConfig)),
            "image_upload_config": .object(AppSettings.json(imageUploadConfig)),
            "auto_translation_enabled": false,
            "async_url_enrich_enabled": .bool(asyncURLEnrichment),
            "disable_auth_checks": false,
            "cdn_expiration_seconds": 1_209_600,
        ]
        for (key, value) in other where object[key] == nil { object[key] = value }
        return object
    }

    /// Where and how the app's events are posted; nil while `webhook_url` is empty.
    var webhook: WebhookSettings? { WebhookSettings(other) }

    static func json(_ rules: UploadRules) -> JSONObject {
        [
            "allowed_file_extensions": .array(rules.allowedFileExtensions.map(RawJSON.string)),
            "blocked_file_extensions": .array(rules.blockedFileExtensions.map(RawJSON.string)),
            "allowed_mime_types": .array(rules.allowedMimeTypes.map(RawJSON.string)),
            "blocked_mime_types": .array(rules.blockedMimeTypes.map(RawJSON.string)),
            "size_limit": .number(JSONNumber(rules.sizeLimit)),
        ]
    }

    /// Applies a `PATCH /app` body; a bad value is an input error naming the field.
    mutating func apply(_ patch: JSONObject) throws(APIError) {
        for (key, value) in patch {
            switch key {
            case "file_upload_config": fileUploadConfig = try AppSettings.rules(value, field: key, current: fileUploadConfig)
            case "image_upload_config": imageUploadConfig = try AppSettings.rules(value, field: key, current: imageUploadConfig)
            case "async_url_enrich_enabled":
                guard let flag = value.boolValue else { throw .input("UpdateApp", "async_url_enrich_enabled must be true or false") }
                asyncURLEnrichment = flag
            case "webhook_url", "webhook_events", "webhook_compression_algorithm":
                // Kept with the other settings (and stored, and echoed) once they make sense.
                try WebhookSettings.check(key, value)
                other[key] = value
            case "custom_action_handler_url":
                try CustomActionHandler.check(value)
                other[key] = value
            case "before_message_send_hook_url", "before_message_send_hook_attempt_timeout_ms":
                try BeforeSendHook.check(key, value)
                other[key] = value
            default: other[key] = value
            }
        }
    }

    static func rules(_ value: RawJSON, field: String, current: UploadRules) throws(APIError) -> UploadRules {
        guard case .object(let object) = value else { throw .input("UpdateApp", "\(field) must be an object") }
        var rules = current
        for (key, member) in object {
            func strings() throws(APIError) -> [String] {
                guard case .array(let elements) = member, elements.allSatisfy({ $0.stringValue != nil }) else {
                    throw .input("UpdateApp", "\(field).\(key) must be an array of strings")
                }
                return elements.compactMap(\.stringValue)
            }
            switch key {
            case "allowed_file_extensions", "blocked_file_extensions":
                let extensions = try strings()
                if let bad = extensions.firstIndex(where: { !$0.hasPrefix(".") }) {
                    throw .input(
                        "UpdateApp",
                        "\(field).\(key)[\(bad)] \"\(extensions[bad])\" must start with a dot, for example \".\(extensions[bad])\"")
                }
                if key == "allowed_file_extensions" { rules.allowedFileExtensions = extensions } else { rules.blockedFileExtensions = extensions }
            case "allowed_mime_types": rules.allowedMimeTypes = try strings()
            case "blocked_mime_types": rules.blockedMimeTypes = try strings()
            case "size_limit":
                guard let limit = member.intValue, limit >= 0, limit <= 104_857_600 else {
                    throw .input("UpdateApp", "\(field).size_limit must be a number of bytes from 0 to 104857600")
                }
                rules.sizeLimit = Int64(limit)
            default:
                throw .input("UpdateApp", "\(field) has no setting \"\(key)\"")
            }
        }
        return rules
    }
}

/// Checks an upload against the app's rules before and while it is stored.
struct UploadPolicy: Sendable {
    let rules: UploadRules
    let isImage: Bool
    let defaultSizeLimit: Int64

    var sizeLimit: Int64 { rules.sizeLimit > 0 ? rules.sizeLimit : defaultSizeLimit }
    var operation: String { isImage ? "UploadImage" : "UploadFile" }

    /// The refusal of a file over ``sizeLimit``.
    var tooLarge: APIError { APIError.tooLarge(operation, "file is larger than the upload limit of \(ByteSizeText.format(sizeLimit))") }

    /// Why a file named `filename` with MIME type `mimeType` is refused, or nil.
    func problem(filename: String, mimeType: String) -> String? {
        let fileExtension = UploadPolicy.fileExtension(filename)
        let type = MIMEType.essence(of: mimeType)
        if isImage, !AppSettings.imageMimeTypes.contains(type) {
            return "File type \(type) is not supported"
        }
        if !rules.allowedFileExtensions.isEmpty,
            !rules.allowedFileExtensions.contains(where: { $0.lowercased() == fileExtension })
        {
            return "File extension \(fileExtension.isEmpty ? "(none)" : fileExtension) is not allowed; allowed: \(rules.allowedFileExtensions.joined(separator: ", "))"
        }
        if rules.blockedFileExtensions.contains(where: { $0.lowercased() == fileExtension }) {
            return "File extension \(fileExtension) is blocked"
        }
        if !rules.allowedMimeTypes.isEmpty, !rules.allowedMimeTypes.contains(where: { MIMEType.matches(type, pattern: $0) }) {
            return "File type \(type) is not allowed; allowed: \(rules.allowedMimeTypes.joined(separator: ", "))"
        }
        if rules.blockedMimeTypes.contains(where: { MIMEType.matches(type, pattern: $0) }) {
            return "File type \(type) is blocked"
        }
        return nil
    }

    /// `.png` for `photo.PNG`; empty when there is no extension.
    static func fileExtension(_ filename: String) -> String {
        let name = FileStore.displayName(filename)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[dot...].lowercased()
    }

    /// Whether the first bytes of an image match its declared type (catches a non-image sent as image/png).
    static func imageBytesMatch(_ head: [UInt8], mimeType: String) -> Bool {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + prefix.count && Array(head[offset..<(offset + prefix.count)]) == prefix
        }
        switch MIMEType.essence(of: mimeType) {
        case "image/png": return starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        case "image/jpeg": return starts([0xFF, 0xD8, 0xFF])
        case "image/gif": return starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8))
        case "image/webp": return starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8)
        case "image/bmp": return starts(Array("BM".utf8))
        case "image/heic", "image/heif", "image/heic-sequence", "image/heif-sequence": return starts(Array("ftyp".utf8), at: 4)
        case "image/svg+xml":
            let text = String(decoding: head.prefix(512), as: UTF8.self).lowercased()
            return text.contains("<svg") || text.hasPrefix("<?xml")
        default: return false
        }
    }
}
