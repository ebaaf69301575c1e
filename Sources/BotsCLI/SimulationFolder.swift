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

    /// Removes a temporary folder. The dev server's SQLite pool closes when the server is
    /// released, which can be just after the simulation returns, and closing deletes its `-wal`
    /// and `-shm` files: a removal that meets that fails half done (one CI run was left with
    /// the database and the archive). So it is tried again, for up to two seconds.
    func finish() {
        guard isTemporary else { return }
        for _ in 0..<40 {
            guard FileManager.default.fileExists(atPath: root.path) else { return }
            try? FileManager.default.removeItem(at: root)
            guard FileManager.default.fileExists(atPath: root.path) else { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    var description: String {
        isTemporary ? "files in \(root.path) (removed at the end)" : "files in \(root.path) (kept for the next simulation)"
    }
}
