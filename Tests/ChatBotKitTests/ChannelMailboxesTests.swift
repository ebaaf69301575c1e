@testable import ChatBotKit
import ChatModels
import Testing

@Suite("ChannelMailboxes: each channel's deliveries come out in order, however many are queued")
struct ChannelMailboxesTests {
    static let general = ChannelId(type: .messaging, id: "general")
    static let other = ChannelId(type: .messaging, id: "other")

    static func delivery(_ index: Int) -> Delivery {
        Delivery(.newMessage, Message(id: "m\(index)", text: "\(index)"))
    }

    @Test("the first delivery of an idle channel asks for a worker; an empty channel becomes idle and is forgotten")
    func workers() {
        let mailboxes = ChannelMailboxes()
        #expect(mailboxes.enqueue(Self.delivery(0), in: Self.general), "idle: start a worker")
        #expect(!mailboxes.enqueue(Self.delivery(1), in: Self.general), "a worker is draining it")
        #expect(mailboxes.enqueue(Self.delivery(2), in: Self.other), "channels are independent")
        #expect(mailboxes.next(in: Self.general)?.message?.id == "m0")
        #expect(mailboxes.next(in: Self.general)?.message?.id == "m1")
        #expect(mailboxes.next(in: Self.general) == nil)
        #expect(mailboxes.pendingChannels == 1, "the drained channel is forgotten; the other is still pending")
        #expect(mailboxes.enqueue(Self.delivery(3), in: Self.general), "idle again: start a worker")
    }

    @Test("a backlog of 30,000 deliveries, taken out while more arrive, comes out whole and in order")
    func backlogInOrder() {
        let mailboxes = ChannelMailboxes()
        var taken: [String] = []
        var queued = 0
        // Three deliveries in, two out, until 30,000 are queued; then drain.
        while queued < 30_000 {
            for _ in 0..<3 {
                _ = mailboxes.enqueue(Self.delivery(queued), in: Self.general)
                queued += 1
            }
            for _ in 0..<2 { if let next = mailboxes.next(in: Self.general) { taken.append(next.message?.id ?? "") } }
        }
        while let next = mailboxes.next(in: Self.general) { taken.append(next.message?.id ?? "") }
        #expect(taken == (0..<30_000).map { "m\($0)" })
        #expect(mailboxes.pendingChannels == 0)
    }
}
