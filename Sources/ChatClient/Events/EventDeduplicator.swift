import ChatModels
import Foundation

/// Remembers the last events delivered, so an event seen live and again through `/sync` (or
/// twice around a reconnect) is delivered once.
struct EventDeduplicator: Sendable {
    private var delivered: RecentKeys

    init(capacity: Int = 10_000) {
        delivered = RecentKeys(capacity: capacity)
    }

    /// Whether `event` is new; records it if so. Events without a time are always new.
    mutating func admit(_ event: Event) -> Bool {
        guard let key = EventDeduplicator.key(event) else { return true }
        return delivered.insert(key)
    }

    /// What makes an event unique: its type, channel, time (the server's clock) and subject.
    static func key(_ event: Event) -> String? {
        guard let createdAt = event.createdAt else { return nil }
        return [
            event.type.rawValue, event.cid?.rawValue ?? "", String(createdAt.timeIntervalSince1970.bitPattern),
            event.message?.id ?? "", event.reaction?.type ?? "", event.user?.id ?? "", event.member?.userId ?? "",
        ].joined(separator: "|")
    }
}
