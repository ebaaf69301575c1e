import ChatModels
import ChatServing
import Foundation

/// Why the dev server is not serving: it could not listen on its address, or it stopped
/// before it did.
public struct DevServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let rawValue: String
        /// A code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The address could not be bound (in use, not permitted, not a local address).
        public static let cannotListen = Code(rawValue: "devserver.cannot_listen")
        /// The server stopped (shutdown, cancellation) before it was listening.
        public static let stopped = Code(rawValue: "devserver.stopped")
        /// The data folder cannot be created, written, or its database opened.
        public static let dataFolder = Code(rawValue: "devserver.data_folder")
        /// The playground's files are not beside the binary (its resource bundle is missing).
        public static let playgroundMissing = Code(rawValue: "devserver.playground_missing")
        /// The code's name.
        public var description: String { rawValue }
    }

    /// The kind.
    public let code: Code
    /// What happened and what to do about it.
    public let message: String

    /// An error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// `[code] message`.
    public var description: String { "[\(code)] \(message)" }

    /// The failure to open the data folder (or the database in it).
    static func dataFolder(_ folder: URL, because error: any Error) -> DevServerError {
        var reason = FileErrorText.describe(error)
        if reason.hasPrefix(folder.path + ": ") { reason.removeFirst(folder.path.count + 2) }
        return DevServerError(
            code: .dataFolder,
            message: "cannot use the data folder \(folder.path): \(reason); choose a folder this user can write"
                + " (embedded.data in bots.yaml, --data for bots serve)")
    }

    /// The failure to start listening on `host:port`, with a hint for the usual causes.
    static func cannotListen(host: String, port: Int, because error: any Error) -> DevServerError {
        let reason = ListenFailure.describe(error, host: host, settings: "embedded.port in bots.yaml, --port for bots serve")
        return DevServerError(code: .cannotListen, message: "cannot listen on \(host):\(port): \(reason)")
    }
}
