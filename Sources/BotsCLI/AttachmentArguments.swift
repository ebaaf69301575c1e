import ChatModels
import Foundation

/// The attachments `bots send` and `bots simulate` are given on the command line: custom
/// payloads as JSON, and local files to upload.
enum AttachmentArguments {
    /// A custom attachment from JSON text, such as `{"type":"workout","workout-type":"run"}`;
    /// `source` names where the text came from in the error (`--attachment`, a file's path).
    static func customPayload(_ text: String, from source: String) throws(AttachmentArgumentError) -> AnyAttachmentPayload {
        let json: RawJSON
        do {
            json = try JSONParser().parse(text)
        } catch {
            throw AttachmentArgumentError("\(source) is not valid JSON: \(error.message)" + (error.offset.map { " at byte \($0)" } ?? ""))
        }
        guard case .object(let object) = json, object["type"]?.stringValue != nil else {
            throw AttachmentArgumentError("\(source) must be a JSON object with a \"type\", such as '{\"type\":\"workout\"}'")
        }
        return AnyAttachmentPayload(json: object)
    }

    /// A local file to upload and attach, as `type` (by default image for image names, else file).
    static func upload(_ path: String, type: AttachmentType?) throws(AttachmentArgumentError) -> AnyAttachmentPayload {
        let url = URL(fileURLWithPath: path)
        let type = type ?? (MIMEType.guess(for: url).hasPrefix("image/") ? .image : .file)
        do {
            return try AnyAttachmentPayload(localFileURL: url, attachmentType: type)
        } catch {
            throw AttachmentArgumentError(error.description)
        }
    }

    /// What `bots simulate --attachment` means by `argument`: JSON when it starts with `{`; a
    /// `.json` file holding one custom attachment; any other file, uploaded (as `fileType`,
    /// or by its name).
    static func simulated(_ argument: String, fileType: AttachmentType?) throws(AttachmentArgumentError) -> AnyAttachmentPayload {
        if argument.drop(while: \.isWhitespace).hasPrefix("{") { return try customPayload(argument, from: "--attachment") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw AttachmentArgumentError(
                "--attachment \(argument) is neither JSON (it would start with '{') nor a file that exists")
        }
        guard argument.lowercased().hasSuffix(".json") else { return try upload(argument, type: fileType) }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: argument))
        } catch {
            throw AttachmentArgumentError("\(argument) cannot be read: \(FileErrorText.describe(error))")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw AttachmentArgumentError("\(argument) is not UTF-8 text") }
        return try customPayload(text, from: argument)
    }
}

/// An attachment given on the command line that cannot be sent; nothing was sent.
struct AttachmentArgumentError: Error, CustomStringConvertible {
    /// The stable code of these errors.
    static let code = "bots.invalid_attachment"
    /// What is wrong, naming the argument.
    let message: String

    init(_ message: String) { self.message = message }

    var description: String { "[\(Self.code)] \(message)" }
}
