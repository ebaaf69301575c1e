@testable import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("RefreshedMessages: re-read messages are kept while their links are valid, and no more than the capacity")
struct RefreshedMessagesTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func message(_ id: String) -> Message {
        Message(id: id, text: "re-read \(id)")
    }

    @Test("a message is served until its links expire, then not")
    func servedWhileValid() {
        var cache = RefreshedMessages(capacity: 3)
        cache.store(Self.message("m1"), as: "m1", until: Self.now.addingTimeInterval(60), now: Self.now)
        #expect(cache.message("m1", at: Self.now)?.text == "re-read m1")
        #expect(cache.message("m1", at: Self.now.addingTimeInterval(60)) == nil, "expired at its time")
        #expect(cache.message("m2", at: Self.now) == nil)
    }

    @Test("when full, expired messages go first, then the one expiring soonest; never more than the capacity")
    func bounded() {
        var cache = RefreshedMessages(capacity: 3)
        cache.store(Self.message("old"), as: "old", until: Self.now.addingTimeInterval(-1), now: Self.now.addingTimeInterval(-100))
        cache.store(Self.message("soon"), as: "soon", until: Self.now.addingTimeInterval(10), now: Self.now)
        cache.store(Self.message("late"), as: "late", until: Self.now.addingTimeInterval(1_000), now: Self.now)
        cache.store(Self.message("new"), as: "new", until: Self.now.addingTimeInterval(500), now: Self.now)
        #expect(cache.count == 3)
        #expect(cache.message("soon", at: Self.now) != nil, "the expired one made room")
        cache.store(Self.message("newer"), as: "newer", until: Self.now.addingTimeInterval(500), now: Self.now)
        #expect(cache.count == 3)
        #expect(cache.message("soon", at: Self.now) == nil, "nothing expired: the soonest to expire made room")
        #expect(["late", "new", "newer"].allSatisfy { cache.message($0, at: Self.now) != nil })
        // Storing a kept message again replaces it and evicts nothing.
        cache.store(Self.message("late"), as: "late", until: Self.now.addingTimeInterval(2_000), now: Self.now)
        #expect(cache.count == 3 && cache.message("new", at: Self.now) != nil)
        for index in 0..<2_000 {
            cache.store(Self.message("m\(index)"), as: "m\(index)", until: Self.now.addingTimeInterval(Double(3_000 + index)), now: Self.now)
        }
        #expect(cache.count == 3)
        #expect(["m1997", "m1998", "m1999"].allSatisfy { cache.message($0, at: Self.now) != nil }, "the latest-expiring are kept")
    }
}
