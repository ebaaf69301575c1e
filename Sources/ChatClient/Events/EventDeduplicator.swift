import ChatModels
import Foundation

/// Remembers the last events delivered, so an event seen live and again through `/sync` (or
/// twice around a reconnect) is delivered once.
struct EventDeduplicator: Sendable {
    private var seen: Set<String> = []
    private var order: [String] = []
    private var head = 0
    let capacity: Int

    init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    /// Whether `event` is new; records it if so. Events without a time are always new.
    mutating func admit(_ event: Event) -> Bool {
        guard let key = EventDeduplicator.key(event) else { return true }
        guard seen.insert(key).inserted else { return false }
        order.append(key)
        if order.count - head > capacity {
            seen.remove(order[head])
            head += 1
            if head > capacity {
                order.removeFirst(head)
                head = 0
            }
        }
        return true
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
