import ChatModels
import Foundation

/// The checks every upload passes before a byte is sent: the file exists and is readable, its
/// size is within the app's `size_limit` and the client's maximum, and its extension and MIME
/// type are allowed by the app's upload configuration.
struct UploadPreflight: Sendable {
    let settings: AppSettings
    let maximumUploadSize: Int64

    func check(_ file: URL, mimeType: String? = nil, type: AttachmentType) throws {
        let state: AttachmentUploadingState
        do {
            state = try AnyAttachmentPayload(localFileURL: file, customPayload: PreflightProbe()).uploadingState!
        } catch {
            throw ChatClientError(code: .uploadRejected, message: error.message)
        }
        let config = type == .image ? settings.imageUploadConfig : settings.fileUploadConfig
        let limit = min(config.effectiveSizeLimit, maximumUploadSize)
        let name = file.lastPathComponent
        guard state.fileSize <= limit else {
            throw ChatClientError(
                code: .uploadRejected,
                message: "\(name) is \(ByteSizeText.format(state.fileSize)) (\(state.fileSize) bytes), over the upload limit of "
                    + "\(ByteSizeText.format(limit)); nothing was uploaded")
        }
        let fileExtension = file.pathExtension.isEmpty ? "" : "." + file.pathExtension.lowercased()
        let mime = MIMEType.essence(of: mimeType ?? state.mimeType)
        func refuse(_ reason: String) -> ChatClientError {
            ChatClientError(code: .uploadRejected, message: "\(name) cannot be uploaded: \(reason); nothing was uploaded")
        }
        if !config.allowedFileExtensions.isEmpty, !config.allowedFileExtensions.contains(where: { $0.lowercased() == fileExtension }) {
            throw refuse("the app allows only \(config.allowedFileExtensions.joined(separator: ", ")) files")
        }
        if config.blockedFileExtensions.contains(where: { $0.lowercased() == fileExtension }) {
            throw refuse("the app blocks \(fileExtension) files")
        }
        if !config.allowedMimeTypes.isEmpty, !config.allowedMimeTypes.contains(where: { MIMEType.matches(mime, pattern: $0) }) {
            throw refuse("the app allows only \(config.allowedMimeTypes.joined(separator: ", ")), not \(mime)")
        }
        if config.blockedMimeTypes.contains(where: { MIMEType.matches(mime, pattern: $0) }) {
            throw refuse("the app blocks \(mime)")
        }
    }
}

/// Only used to reuse the file inspection of ``AnyAttachmentPayload``.
private struct PreflightProbe: AttachmentPayload {
    static let type = AttachmentType(rawValue: "preflight")
}
