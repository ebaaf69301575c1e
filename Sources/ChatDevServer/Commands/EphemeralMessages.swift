import ChatLocking
import ChatModels
import Foundation

/// Messages only their author sees: what a custom command's handler answered as `ephemeral`
/// (a question with buttons, say). They are kept in memory until an action turns them into a
/// posted message or removes them, and never reach the channel's history or events; the
/// oldest are forgotten beyond `capacity`, as an abandoned preview would be.
final class EphemeralMessages: Sendable {
    /// One ephemeral message: the stored form it is posted in when its handler says so.
    struct Entry: Sendable {
        var message: StoredMessage
        var sequence: Int
    }

    private struct Contents {
        var entries: [String: Entry] = [:]
        var next = 0
    }

    private let contents = Locked(Contents())
    let capacity: Int

    init(capacity: Int = 10_000) { self.capacity = capacity }

    /// The ephemeral message with `id`, if it is held.
    func message(_ id: String) -> StoredMessage? { contents.withLock { $0.entries[id]?.message } }

    /// Holds `message` (replacing one with its id).
    func keep(_ message: StoredMessage) {
        contents.withLock { contents in
            contents.next += 1
            contents.entries[message.id] = Entry(message: message, sequence: contents.next)
            if contents.entries.count > capacity, let oldest = contents.entries.min(by: { $0.value.sequence < $1.value.sequence }) {
                contents.entries[oldest.key] = nil
            }
        }
    }

    /// Forgets the message with `id`.
    func remove(_ id: String) { _ = contents.withLock { $0.entries.removeValue(forKey: id) } }

    /// Whether a message with `id` is held (ids are unique across ephemeral and stored messages).
    func contains(_ id: String) -> Bool { contents.withLock { $0.entries[id] != nil } }
}
