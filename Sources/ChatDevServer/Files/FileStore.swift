import ChatModels
import Foundation

/// Where uploaded bytes live: `files/<id>` under the data folder, with `tmp/` for uploads in
/// progress. Names on disk are generated, so no client-supplied name reaches the file system.
struct FileStore: Sendable {
    let root: URL

    init(dataDirectory: URL) throws {
        root = dataDirectory.appendingPathComponent("files", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: temporaryFolder, withIntermediateDirectories: true)
    }

    var temporaryFolder: URL { root.appendingPathComponent("tmp", isDirectory: true) }

    func path(for id: String) -> URL { root.appendingPathComponent(id) }

    func temporaryPath() -> URL { temporaryFolder.appendingPathComponent(UUID().uuidString.lowercased()) }

    /// The URL path of a file: `/files/<id>/<display name>`.
    static func urlPath(id: String, name: String) -> String { "/files/\(id)/\(displayName(name))" }

    /// A file name safe to put in a URL: the last path component of what the client sent,
    /// letters, digits, `.`, `-` and `_` only, at most 100 characters.
    static func displayName(_ name: String) -> String {
        let last = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var cleaned = String(
            last.unicodeScalars.map { scalar -> Character in
                let allowed = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._-".unicodeScalars.contains(scalar))
                return allowed ? Character(scalar) : "_"
            })
        while cleaned.hasPrefix(".") { cleaned.removeFirst() }
        if cleaned.isEmpty { cleaned = "file" }
        return String(cleaned.suffix(100))
    }

    /// The file id in a link produced by ``urlPath(id:name:)``, whatever host it names.
    static func fileId(inLink link: String) -> String? {
        guard let components = URLComponents(string: link) else { return nil }
        let parts = components.path.split(separator: "/")
        guard parts.count >= 2, parts[0] == "files" else { return nil }
        let id = String(parts[1])
        return id.allSatisfy({ $0.isHexDigit || $0 == "-" }) ? id : nil
    }
}
