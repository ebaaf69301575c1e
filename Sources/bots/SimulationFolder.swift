import Foundation

/// Where `bots simulate` keeps the server's and the bots' files: the folder `--data` names
/// (made if missing, and kept), or a temporary one, removed when the simulation ends.
struct SimulationFolder: CustomStringConvertible {
    /// The folder; every path of the configuration is taken inside it.
    let root: URL
    /// Whether it is removed at the end.
    let isTemporary: Bool

    /// The folder at `path`, or a new temporary one.
    init(path: String?) throws {
        if let path {
            root = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
            isTemporary = false
        } else {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("bots-simulate-\(UUID().uuidString.prefix(8))", isDirectory: true)
            isTemporary = true
        }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// Removes a temporary folder.
    func finish() {
        if isTemporary { try? FileManager.default.removeItem(at: root) }
    }

    var description: String {
        isTemporary ? "files in \(root.path) (removed at the end)" : "files in \(root.path) (kept for the next simulation)"
    }
}
