import ChatLocking
import ChatModels
import Foundation
import Tracing

/// What a bot handles: a new message, an edit of one, the deletion of one, a reaction to one
/// (or a channel's truncation, or another channel event it has handlers for), with the key
/// that identifies it.
struct Delivery: Sendable {
    /// What is handled.
    enum Work: Sendable {
        /// A message, new, edited, deleted or reacted to.
        case message(BotContext.Trigger, Message)
        /// A channel's truncation or deletion, which concerns no one message.
        case truncation(ChannelTruncation)
        /// One user's messages in the channel deleted at once.
        case userMessagesDeletion(UserMessagesDeletion)
        /// Another channel event (a member added, a custom event, ...) for ``Bot/onEvent(_:handler:)``.
        case event(Event)
        /// The bot added to the channel, for ``Bot/onAddedToChannel(_:)``.
        case addition(Event)
        /// A scheduled handler's run in the channel; `isMadeUp` when it fell while the bot was stopped.
        case schedule(name: String, at: Date, isMadeUp: Bool)
        /// A conversation in the channel whose time for an answer ran out at `expiresAt`.
        case conversationTimeout(ConversationKey, expiresAt: Date)
    }

    let work: Work
    /// What a redelivery shares and reply ids are derived from: the message id; for an edit
    /// and an undeletion also its `updated_at`; for a deletion also its `deleted_at`. So
    /// replies about an edit, a deletion or an undeletion never take the ids of the replies to
    /// the message.
    let key: String
    /// When the bot took it, where its span starts.
    let acceptedAt = DefaultTracerClock.now

    init(_ trigger: BotContext.Trigger, _ message: Message) {
        work = .message(trigger, message)
        key = Delivery.key(trigger, message)
    }

    /// A channel's truncation or deletion, keyed by the channel and the moment it reaches.
    init(_ truncation: ChannelTruncation) {
        work = .truncation(truncation)
        key = "\(truncation.cid.rawValue)\n\(truncation.isChannelDeleted ? "deleted" : "truncated") \(RFC3339.string(from: truncation.truncatedAt))"
    }

    /// A deletion of one user's messages, keyed by the channel, the user and the moment.
    init(_ deletion: UserMessagesDeletion) {
        work = .userMessagesDeletion(deletion)
        key = "\(deletion.cid.rawValue)\nuser messages deleted \(deletion.user.id) \(RFC3339.string(from: deletion.deletedAt))"
    }

    /// A channel event of `cid`, keyed by its type, whom it concerns and when it happened. One
    /// without a time cannot be told from a redelivery, so it gets a key of its own.
    init(event: Event, in cid: ChannelId) {
        work = .event(event)
        let concerns = event.member?.userId ?? event.user?.id ?? ""
        let time = event.createdAt.map { RFC3339.string(from: $0) } ?? UUID().uuidString
        key = "\(cid.rawValue)\nevent \(event.type.rawValue) \(concerns) \(time)"
    }

    /// The bot's addition to `cid`, keyed by the moment: `member.added` and
    /// `notification.added_to_channel` of one addition are one delivery.
    init(addition event: Event, in cid: ChannelId) {
        work = .addition(event)
        key = "\(cid.rawValue)\nadded \(event.createdAt.map { RFC3339.string(from: $0) } ?? UUID().uuidString)"
    }

    /// The run of schedule `name` due at `date` in `cid`, keyed by all three.
    init(schedule name: String, at date: Date, in cid: ChannelId, isMadeUp: Bool = false) {
        work = .schedule(name: name, at: date, isMadeUp: isMadeUp)
        key = "\(cid.rawValue)\nschedule \(name) \(RFC3339.string(from: date))"
    }

    /// The timeout of the conversation under `conversation`, keyed by it and the moment it ran out.
    init(timeoutOf conversation: ConversationKey, at expiresAt: Date) {
        work = .conversationTimeout(conversation, expiresAt: expiresAt)
        key = "\(conversation.channel.rawValue)\nconversation timeout \(conversation.user) \(conversation.thread ?? "") \(RFC3339.string(from: expiresAt))"
    }

    /// The message, for a message's delivery.
    var message: Message? {
        guard case .message(_, let message) = work else { return nil }
        return message
    }

    static func key(_ trigger: BotContext.Trigger, _ message: Message) -> String {
        switch trigger {
        case .newMessage: message.id
        case .edit: "\(message.id)\nupdated \(message.updatedAt.map { RFC3339.string(from: $0) } ?? "")"
        // A message deleted, undeleted and deleted again is deleted twice: `deleted_at` tells
        // the deletions apart, and `updated_at` the undeletions.
        case .deletion: "\(message.id)\ndeleted \(message.deletedAt.map { RFC3339.string(from: $0) } ?? "")"
        case .undeletion: "\(message.id)\nundeleted \(message.updatedAt.map { RFC3339.string(from: $0) } ?? "")"
        // A reaction added again after it was taken off has a new `created_at`, and one taken
        // off again after that a new `updated_at`: each is a delivery of its own.
        case .reaction(let reaction, let isRemoved):
            "\(message.id)\nreaction \(reaction.type) \(reaction.userId ?? "") "
                + "\(isRemoved ? "removed" : "added") \((reaction.updatedAt ?? reaction.createdAt).map { RFC3339.string(from: $0) } ?? "")"
        // A reminder moved and due again is a delivery of its own.
        case .reminderDue(let reminder): "\(message.id)\nreminder due \(reminder.remindAt.map { RFC3339.string(from: $0) } ?? "")"
        // A vote changed again, or cast again after it was taken back, is a delivery of its own.
        case .pollVote(let vote, _, let change):
            "\(message.id)\npoll vote \(vote.id) \(change) \((vote.updatedAt ?? vote.createdAt).map { RFC3339.string(from: $0) } ?? "")"
        case .pollClosed(let poll): "\(message.id)\npoll closed \(poll.id)"
        // Sharing one is handled with the message's arrival (this key only names its replies);
        // each move or stop is the location's own update.
        case .location(let location, let change):
            "\(message.id)\nlocation \(change) \(location.updatedAt.map { RFC3339.string(from: $0) } ?? "")"
        }
    }
}

/// One queue of deliveries per channel: those of a channel are handled one after the other, in
/// arrival order (so a deletion waits for the handlers of the message it deletes); a channel is
/// "active" while a worker drains its queue.
final class ChannelMailboxes: Sendable {
    /// A channel's queue. Changed in place in the dictionary, and taken from the front by
    /// moving `head`: copying it out and back made every enqueue and dequeue copy the whole
    /// queue, and a backlog of 20,000 deliveries in one channel (a `/sync` after an outage)
    /// took 6 s to queue and drain instead of a few milliseconds.
    private struct Mailbox {
        var queue: [Delivery] = []
        var head = 0
        var active = false

        /// Queues a delivery; true when the channel had no worker.
        mutating func push(_ delivery: Delivery) -> Bool {
            queue.append(delivery)
            defer { active = true }
            return !active
        }

        /// The oldest delivery, if any.
        mutating func pop() -> Delivery? {
            guard head < queue.count else { return nil }
            let delivery = queue[head]
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64, head * 2 >= queue.count {
                // Handled deliveries are dropped once they are half the array: amortized O(1).
                queue.removeFirst(head)
                head = 0
            }
            return delivery
        }
    }

    private let mailboxes = Locked<[ChannelId: Mailbox]>([:])

    /// Queues a delivery; true when the channel had no worker and the caller must start one.
    func enqueue(_ delivery: Delivery, in cid: ChannelId) -> Bool {
        mailboxes.withLock { $0[cid, default: Mailbox()].push(delivery) }
    }

    /// The next delivery of the channel; nil (and the channel becomes inactive) when it is empty.
    func next(in cid: ChannelId) -> Delivery? {
        mailboxes.withLock { mailboxes in
            guard let delivery = mailboxes[cid]?.pop() else {
                mailboxes[cid] = nil
                return nil
            }
            return delivery
        }
    }

    /// Whether `cid` has deliveries queued or being handled.
    func isPending(_ cid: ChannelId) -> Bool { mailboxes.withLock { $0[cid] != nil } }

    /// Channels with deliveries queued or being handled.
    var pendingChannels: Int { mailboxes.withLock { $0.count } }
}

/// A counting semaphore for async code: at most `limit` holders at a time.
final class AsyncSlots: Sendable {
    private struct State {
        var available: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Locked<State>

    init(limit: Int) {
        state = Locked(State(available: max(1, limit)))
    }

    func acquire() async {
        await withCheckedContinuation { continuation in
            let granted = state.withLock { state -> Bool in
                if state.available > 0 {
                    state.available -= 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    func release() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.available += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.resume()
    }
}
