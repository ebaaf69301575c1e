@testable import ChatBotKit
import ChatModels
import Foundation
import Testing

@Suite("EventAcceptance: what an event is to a bot, a delivery in one of its channels or nothing")
struct EventAcceptanceTests {
    static let general: ChannelId = "messaging:general"
    static let at = Date(timeIntervalSince1970: 1_790_000_000)

    @Test("a new message from someone else is a delivery keyed by its id; the bot's own, or an ephemeral one, is nothing")
    func messages() {
        let acceptance = EventAcceptance(bot: Bot(name: "relay"))
        let accepted = acceptance.delivery(for: newMessage("m1", in: Self.general, at: Self.at))
        #expect(accepted?.0.key == "m1")
        #expect(accepted?.1 == Self.general)
        #expect(acceptance.delivery(for: newMessage("m2", in: Self.general, by: "relay", at: Self.at)) == nil)
        var ephemeral = newMessage("m3", in: Self.general, at: Self.at)
        ephemeral.message?.type = .ephemeral
        #expect(acceptance.delivery(for: ephemeral) == nil)
    }

    @Test("a reaction is taken only by a bot with reaction handlers, and never the bot's own")
    func reactions() {
        func reaction(by user: String) -> Event {
            Event(
                type: .reactionNew, createdAt: Self.at, cid: Self.general, message: Message(id: "m1", cid: Self.general, user: User(id: "relay")),
                user: User(id: user), reaction: Reaction(type: "like", messageId: "m1", createdAt: Self.at))
        }
        let bot = Bot(name: "relay")
        #expect(EventAcceptance(bot: bot).delivery(for: reaction(by: "ann")) == nil, "no reaction handlers: nothing queued")
        bot.onReaction { _, _ in }
        let accepted = EventAcceptance(bot: bot).delivery(for: reaction(by: "ann"))
        guard case .message(.reaction(let taken, isRemoved: false), let message)? = accepted?.0.work else {
            Issue.record("not a reaction: \(String(describing: accepted?.0.work))")
            return
        }
        #expect(taken.userId == "ann", "who reacted is resolved once")
        #expect(message.id == "m1")
        #expect(EventAcceptance(bot: bot).delivery(for: reaction(by: "relay")) == nil)
    }

    @Test("another channel event is taken by a bot with handlers of its type, unless the bot did it")
    func channelEvents() {
        let bot = Bot(name: "relay")
        let updated = Event(type: .channelUpdated, createdAt: Self.at, cid: Self.general, user: User(id: "ann"))
        #expect(EventAcceptance(bot: bot).delivery(for: updated) == nil)
        bot.onEvent(.channelUpdated) { _ in }
        #expect(EventAcceptance(bot: bot).delivery(for: updated)?.1 == Self.general)
        let own = Event(type: .channelUpdated, createdAt: Self.at, cid: Self.general, user: User(id: "relay"))
        #expect(EventAcceptance(bot: bot).delivery(for: own) == nil)
    }

    @Test("a user deleted with its messages is their deletion, unless it is the bot; one deleted without is nothing")
    func userDeletion() {
        let acceptance = EventAcceptance(bot: Bot(name: "relay"))
        let marked: [String: RawJSON] = ["mark_messages_deleted": .bool(true)]
        let deletion = acceptance.userDeletion(
            Event(type: .userDeleted, createdAt: Self.at, user: User(id: "ann"), hardDelete: true, extraData: marked))
        #expect(deletion?.user.id == "ann")
        #expect(deletion?.deletedAt == Self.at)
        #expect(deletion?.isHardDelete == true)
        #expect(acceptance.userDeletion(Event(type: .userDeleted, createdAt: Self.at, user: User(id: "ann"))) == nil)
        #expect(acceptance.userDeletion(Event(type: .userDeleted, createdAt: Self.at, user: User(id: "relay"), extraData: marked)) == nil)
    }
}
