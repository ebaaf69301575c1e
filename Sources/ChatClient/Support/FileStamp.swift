import Foundation

/// What tells a changed file apart: its modification time, size and inode (editors that save
/// by renaming a new file over the old one change only the inode, sometimes). `bots run
/// --watch` compares stamps to notice a saved bots.yaml; ``DeduplicatingCDNStorage`` to know
/// a file it hashed is unchanged.
public struct FileStamp: Equatable, Sendable {
    let modified: Date?
    let size: Int?
    let inode: Int?

    /// The file at `path` as it is now (all nil when it cannot be read).
    public init(_ path: String) {
        self.init(attributes: (try? FileManager.default.attributesOfItem(atPath: path)) ?? [:])
    }

    /// The stamp in a file's attributes (`FileManager.attributesOfItem(atPath:)`).
    init(attributes: [FileAttributeKey: Any]) {
        modified = attributes[.modificationDate] as? Date
        size = (attributes[.size] as? NSNumber)?.intValue
        inode = (attributes[.systemFileNumber] as? NSNumber)?.intValue
    }
}
