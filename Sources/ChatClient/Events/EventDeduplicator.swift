import ChatModels
import Foundation

/// Remembers the last events delivered, so an event seen live and again through `/sync` (or
/// twice around a reconnect) is delivered once, and a new message once, whichever way it comes.
struct EventDeduplicator: Sendable {
    private var delivered: RecentKeys

    init(capacity: Int = 10_000) {
        delivered = RecentKeys(capacity: capacity)
    }

    /// Whether `event` is new; records it if so. Events without a time are always new, except
    /// those carrying a new message, which are told apart by the message id.
    mutating func admit(_ event: Event) -> Bool {
        guard let key = EventDeduplicator.key(event) else { return true }
        return delivered.insert(key)
    }

    /// What makes an event unique: its type, channel, time (the server's clock) and subject.
    ///
    /// A new message is new once: a reconnected connection that does not watch its channels yet
    /// gets `notification.message_new` (as a member not watching), and `/sync` then brings the
    /// same messages as the logged `message.new`. Both were delivered, and a client counting new
    /// messages saw each twice.
    static func key(_ event: Event) -> String? {
        if event.type.carriesNewMessage, let messageId = event.message?.id { return "new message|\(messageId)" }
        guard let createdAt = event.createdAt else { return nil }
        return [
            event.type.rawValue, event.cid?.rawValue ?? "", String(createdAt.timeIntervalSince1970.bitPattern),
            event.message?.id ?? "", event.reaction?.type ?? "", event.user?.id ?? "", event.member?.userId ?? "",
        ].joined(separator: "|")
    }
}
