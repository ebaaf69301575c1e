import ChatModels

/// The uploads a ``DeduplicatingCDNStorage`` keeps, least recently used first out once it
/// holds its capacity.
struct RecentUploads: Sendable {
    /// One kept upload: its links, and the fields its storage added to the attachment.
    struct Upload: Sendable {
        var file: UploadedFile
        var learned: JSONObject
    }

    private var uploads: [DeduplicatingCDNStorage.Key: (upload: Upload, lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0

    /// How many uploads are kept.
    var count: Int { uploads.count }

    /// The upload kept for `key`, now the most recently used.
    mutating func use(_ key: DeduplicatingCDNStorage.Key) -> Upload? {
        guard let kept = uploads[key] else { return nil }
        clock += 1
        uploads[key] = (kept.upload, clock)
        return kept.upload
    }

    /// Keeps `upload` for `key`; the least recently used goes when `capacity` are kept. A scan,
    /// not a heap: a thousand entries take microseconds, next to an upload's milliseconds.
    mutating func remember(_ upload: Upload, for key: DeduplicatingCDNStorage.Key, capacity: Int) {
        clock += 1
        uploads[key] = (upload, clock)
        while uploads.count > capacity, let oldest = uploads.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            uploads[oldest] = nil
        }
    }

    /// Every upload kept, least recently used first (as a record file lists them).
    var leastRecentlyUsedFirst: [(key: DeduplicatingCDNStorage.Key, upload: Upload)] {
        uploads.sorted { $0.value.lastUse < $1.value.lastUse }.map { ($0.key, $0.value.upload) }
    }

    /// Forgets the upload of `key`.
    mutating func forget(_ key: DeduplicatingCDNStorage.Key) {
        uploads[key] = nil
    }

    /// Forgets every upload `matches` picks.
    mutating func forget(where matches: (Upload) -> Bool) {
        uploads = uploads.filter { !matches($0.value.upload) }
    }
}
