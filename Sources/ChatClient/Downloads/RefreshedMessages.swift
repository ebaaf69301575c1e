import ChatModels
import Foundation

/// Messages re-read for fresh file links, kept while their links are valid so that the next
/// download from the same message needs no `getMessage`.
///
/// Bounded: a bot archiving weeks of history refreshes a link for every old message, and an
/// unbounded cache kept each of those messages for the life of the process.
struct RefreshedMessages: Sendable {
    private var entries: [String: (message: Message, until: Date)] = [:]
    /// How many messages are kept at most.
    let capacity: Int

    init(capacity: Int = 1_000) {
        precondition(capacity > 0, "the cache must hold at least one message")
        self.capacity = capacity
    }

    /// The message re-read as `messageId`, if its links are still valid at `now`.
    func message(_ messageId: String, at now: Date = Date()) -> Message? {
        guard let entry = entries[messageId], entry.until > now else { return nil }
        return entry.message
    }

    /// Keeps `message` until `until`. When full, expired messages go first, then the one whose
    /// links expire soonest.
    mutating func store(_ message: Message, as messageId: String, until: Date, now: Date = Date()) {
        if entries[messageId] == nil, entries.count >= capacity {
            entries = entries.filter { $0.value.until > now }
            if entries.count >= capacity, let soonest = entries.min(by: { $0.value.until < $1.value.until })?.key {
                entries[soonest] = nil
            }
        }
        entries[messageId] = (message, until)
    }

    /// How many messages are kept now.
    var count: Int { entries.count }
}
