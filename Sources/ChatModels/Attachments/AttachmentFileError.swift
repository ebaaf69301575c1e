/// A local file that cannot become an attachment: missing, unreadable, a folder, or of a type
/// that has no uploadable payload.
public struct AttachmentFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable error kind.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String
        /// A code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// No file at the path.
        public static let fileNotFound = Code(rawValue: "attachment.file_not_found")
        /// The path is a folder.
        public static let notAFile = Code(rawValue: "attachment.not_a_file")
        /// The file cannot be read.
        public static let unreadable = Code(rawValue: "attachment.file_unreadable")
        /// The attachment type has no built-in payload for a local file; use `customPayload:`.
        public static let unsupportedUploadType = Code(rawValue: "attachment.unsupported_upload_type")
        /// The payload could not be encoded.
        public static let encodingFailed = Code(rawValue: "attachment.encoding_failed")
        /// The code's name.
        public var description: String { rawValue }
    }

    /// The error kind.
    public let code: Code
    /// What went wrong and what to do about it.
    public let message: String

    /// An error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// `[code] message`.
    public var description: String { "[\(code)] \(message)" }
}
