import CMagic
import ChatLocking
import Foundation

/// The real type of a file, read from its bytes with libmagic (the library behind `file(1)`),
/// not from its name or the type its sender declared.
///
/// ```swift
/// let sniffer = try FileTypeSniffer()
/// try sniffer.mimeType(ofFile: url)   // "application/x-pie-executable" for a program renamed .png
/// ```
public final class FileTypeSniffer: Sendable {
    private let cookies: Locked<Cookies>

    /// Loads the system's magic database.
    public init() throws(SniffingError) {
        guard let mime = magic_open(MAGIC_MIME_TYPE | MAGIC_ERROR), let text = magic_open(MAGIC_ERROR) else {
            throw SniffingError(code: .unavailable, message: "libmagic could not be initialised")
        }
        guard magic_load(mime, nil) == 0, magic_load(text, nil) == 0 else {
            let detail = magic_error(mime).map { String(cString: $0) } ?? "unknown error"
            magic_close(mime)
            magic_close(text)
            throw SniffingError(code: .unavailable, message: "libmagic could not load its database: \(detail) (install libmagic-mgc)")
        }
        cookies = Locked(Cookies(mime: mime, text: text))
    }

    deinit {
        cookies.withLock { cookies in
            magic_close(cookies.mime)
            magic_close(cookies.text)
        }
    }

    /// The MIME type of the file at `url` (`image/png`, `application/pdf`, ...).
    public func mimeType(ofFile url: URL) throws(SniffingError) -> String {
        try cookies.withLock { cookies throws(SniffingError) in try FileTypeSniffer.run(cookies.mime, file: url) }
    }

    /// A human description of the file at `url` (`PNG image data, 1 x 1, 8-bit/color RGBA`).
    public func description(ofFile url: URL) throws(SniffingError) -> String {
        try cookies.withLock { cookies throws(SniffingError) in try FileTypeSniffer.run(cookies.text, file: url) }
    }

    /// The MIME type of bytes in memory.
    public func mimeType(of data: Data) throws(SniffingError) -> String {
        try cookies.withLock { cookies throws(SniffingError) in
            let result = data.withUnsafeBytes { magic_buffer(cookies.mime, $0.baseAddress, $0.count) }
            guard let result else { throw SniffingError(code: .failed, message: FileTypeSniffer.lastError(cookies.mime)) }
            return String(cString: result)
        }
    }

    private static func run(_ cookie: OpaquePointer, file: URL) throws(SniffingError) -> String {
        guard FileManager.default.isReadableFile(atPath: file.path) else {
            throw SniffingError(code: .unreadable, message: "cannot read \(file.path)")
        }
        guard let result = magic_file(cookie, file.path) else {
            throw SniffingError(code: .failed, message: lastError(cookie))
        }
        return String(cString: result)
    }

    private static func lastError(_ cookie: OpaquePointer) -> String {
        magic_error(cookie).map { String(cString: $0) } ?? "libmagic failed"
    }
}

/// The libmagic handles; libmagic handles are not thread-safe, so they are used under a lock.
struct Cookies: @unchecked Sendable {
    let mime: OpaquePointer
    let text: OpaquePointer
}

/// Why a file's type could not be read.
public struct SniffingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String
        /// A code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// libmagic or its database is missing.
        public static let unavailable = Code(rawValue: "sniffing.unavailable")
        /// The file cannot be read.
        public static let unreadable = Code(rawValue: "sniffing.unreadable")
        /// libmagic could not decide.
        public static let failed = Code(rawValue: "sniffing.failed")
        /// The code's name.
        public var description: String { rawValue }
    }

    /// The kind.
    public let code: Code
    /// What happened.
    public let message: String

    /// An error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// `[code] message`.
    public var description: String { "[\(code)] \(message)" }
}
