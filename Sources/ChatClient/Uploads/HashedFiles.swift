import Foundation

/// The SHA-256 of files read before, kept while a file looks unchanged: same path, size,
/// modification time and inode, which is how git and make judge a file unchanged. A bot that
/// sends one file from disk again and again reads it once. A file changed within two seconds
/// of being read is not kept (``FileStamp/isSettled(at:)``).
struct HashedFiles: Sendable {
    /// The coarsest modification-time granularity allowed for (FAT's two seconds).
    static let stampGranularity: TimeInterval = 2

    private var digests: [String: (stamp: FileStamp, sha256: String)] = [:]
    private var order: [String] = []
    let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// The digest of `path` if its stamp is still the one it had when hashed.
    func digest(of path: String, stamped stamp: FileStamp) -> String? {
        guard let known = digests[path], known.stamp == stamp else { return nil }
        return known.sha256
    }

    /// Keeps `sha256` for `path` with its stamp now; the oldest path goes once `capacity` are kept.
    mutating func remember(_ sha256: String, of path: String, stamped stamp: FileStamp) {
        if digests.updateValue((stamp, sha256), forKey: path) == nil { order.append(path) }
        while order.count > capacity { digests[order.removeFirst()] = nil }
    }
}

extension FileStamp {
    /// Whether the file was last changed long enough before `date` that a change now would
    /// show in its modification time. File systems stamp changes with a coarse clock (a few
    /// milliseconds on ext4, two seconds on FAT), so a file rewritten with the same size
    /// just after it was read can keep its stamp; git calls such a file "racily clean" and
    /// reads it again, as ``DeduplicatingCDNStorage`` does.
    func isSettled(at date: Date) -> Bool {
        guard let modified else { return false }
        return modified < date.addingTimeInterval(-HashedFiles.stampGranularity)
    }
}
