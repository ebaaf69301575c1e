import Foundation

/// An attachment whose JSON does not fit its registered payload type.
///
/// It names the field (`workout-energy-cal`) and the reason (`expected an integer, found
/// string "lots"`); the raw JSON is kept so nothing is lost. The message's other attachments
/// decode independently.
public struct AttachmentDecodingFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable error code of every decoding failure.
    public static let code = "attachment.decoding_failed"

    /// The attachment that failed.
    public let attachmentId: AttachmentId
    /// Its attachment type.
    public let type: AttachmentType
    /// The payload type that was asked for.
    public let payloadType: String
    /// The dotted path of the offending field within the attachment; empty for the whole object.
    public let fieldPath: String
    /// Why it failed.
    public let reason: String
    /// The attachment's JSON bytes, unchanged.
    public let rawData: Data

    /// A failure.
    public init(
        attachmentId: AttachmentId, type: AttachmentType, payloadType: String, fieldPath: String, reason: String,
        rawData: Data
    ) {
        self.attachmentId = attachmentId
        self.type = type
        self.payloadType = payloadType
        self.fieldPath = fieldPath
        self.reason = reason
        self.rawData = rawData
    }

    /// A message for the person who sent the attachment: which field is wrong and why.
    public var message: String {
        fieldPath.isEmpty
            ? "the \(type.rawValue) attachment could not be read: \(reason)"
            : "field \"\(fieldPath)\" of the \(type.rawValue) attachment is invalid: \(reason)"
    }

    /// `[attachment.decoding_failed] <id>: <message>`.
    public var description: String { "[\(Self.code)] \(attachmentId) as \(payloadType): \(message)" }

    /// The field path and reason of a `DecodingError` (tools' arguments are reported the same way).
    package static func describe(_ error: DecodingError) -> (String, String) {
        switch error {
        case .typeMismatch(_, let context):
            return (JSONPath(codingPath: context.codingPath).description, context.debugDescription)
        case .valueNotFound(_, let context):
            return (JSONPath(codingPath: context.codingPath).description, "a value is required but the field is null")
        case .keyNotFound(let key, let context):
            return (JSONPath(codingPath: context.codingPath + [key]).description, "required field is missing")
        case .dataCorrupted(let context):
            return (JSONPath(codingPath: context.codingPath).description, context.debugDescription)
        @unknown default:
            return ("", "\(error)")
        }
    }
}
