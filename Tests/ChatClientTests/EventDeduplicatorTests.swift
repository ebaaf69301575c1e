@testable import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("EventDeduplicator: an event is delivered once, and a new message once, whichever way it comes")
struct EventDeduplicatorTests {
    static let at = Date(timeIntervalSince1970: 1_800_000_000.25)
    static let general = ChannelId(type: .messaging, id: "general")

    static func event(_ type: EventType, _ messageId: String, at date: Date? = at, text: String = "hi") -> Event {
        Event(type: type, createdAt: date, cid: general, message: Message(id: messageId, text: text))
    }

    /// Offers each event in turn; true where it was delivered.
    static func offer(_ events: [Event], to deduplicator: inout EventDeduplicator) -> [Bool] {
        events.map { deduplicator.admit($0) }
    }

    @Test("message.new and notification.message_new of one message, with or without a time: the first is delivered, the rest are not")
    func newMessageOnce() {
        var deduplicator = EventDeduplicator()
        let delivered = Self.offer(
            [
                Self.event(.messageNew, "m1"), Self.event(.notificationMessageNew, "m1"), Self.event(.messageNew, "m1", at: nil),
                Self.event(.notificationMessageNew, "m2", at: nil), Self.event(.messageNew, "m2"),
            ], to: &deduplicator)
        #expect(delivered == [true, false, false, true, false])
    }

    @Test("other events: the same event twice is delivered once; edits of one message at other times, and timeless events, each get through")
    func otherEvents() {
        var deduplicator = EventDeduplicator()
        let edit = Self.event(.messageUpdated, "m1", text: "v2")
        let later = Self.event(.messageUpdated, "m1", at: Self.at.addingTimeInterval(1), text: "v3")
        let timeless = Event(type: EventType(rawValue: "custom.ping"))
        #expect(Self.offer([edit, edit, later, timeless, timeless], to: &deduplicator) == [true, false, true, true, true])
    }
}
