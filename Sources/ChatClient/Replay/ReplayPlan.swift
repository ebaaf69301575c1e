import ChatModels
import Foundation

/// What replaying an ``EventCapture`` does, call by call, worked out before any call is made:
/// new messages are sent again as their users (text, attachments, custom fields, threads and
/// quotes), then edited, reacted to and deleted as the capture says. Everything else (health
/// checks, typing, reads, membership) is counted as skipped, with the reason.
///
/// Message ids are the recorded ones here; ``ChatClient/replay(_:idSuffix:speed:onStep:)`` gives
/// each a suffix, so a capture can be replayed more than once on one server.
public struct ReplayPlan: Sendable {
    /// One call to make.
    public enum Action: Sendable {
        /// Send a message (ids are recorded ones).
        case send(
            messageId: String, text: String, attachments: [JSONObject], parentId: String?, quotedMessageId: String?, showInChannel: Bool?,
            mentionedUserIds: [String], isSilent: Bool, extraData: [String: RawJSON])
        /// Edit a message sent earlier in the replay.
        case edit(messageId: String, text: String, attachments: [JSONObject], extraData: [String: RawJSON])
        /// Delete a message sent earlier in the replay.
        case delete(messageId: String, hard: Bool)
        /// React to a message sent earlier in the replay.
        case react(messageId: String, type: String, score: Int, extraData: [String: RawJSON])
        /// Take a reaction back.
        case unreact(messageId: String, type: String)

        /// The recorded id of the message the call sends or acts on.
        public var messageId: String {
            switch self {
            case .send(let id, _, _, _, _, _, _, _, _), .edit(let id, _, _, _), .delete(let id, _), .react(let id, _, _, _), .unreact(let id, _): id
            }
        }
    }

    /// A call, with where it came from and whom it acts as.
    public struct Step: Sendable {
        /// The capture's line.
        public var line: Int
        /// The channel it goes to.
        public var cid: ChannelId
        /// The user it acts as (nil: the server, for deletions).
        public var userId: String?
        /// When the recorded event happened, for replaying at the recorded pace.
        public var recordedAt: Date?
        /// The call.
        public var action: Action
    }

    /// The calls, in the capture's order.
    public var steps: [Step] = []
    /// The users the steps act as, with their names and custom fields, made before the first step.
    public var users: [User] = []
    /// The channels each user is made a member of before the first step.
    public var memberships: [(cid: ChannelId, userId: String)] = []
    /// What was left out and why, in the order first met, with how many.
    public var skipped: [(reason: String, count: Int)] = []

    /// The id a replay gives the message recorded as `recorded`: with `-suffix`, or as recorded
    /// when the suffix is empty.
    public static func replayedId(of recorded: String, suffix: String) -> String {
        suffix.isEmpty ? recorded : "\(recorded)-\(suffix)"
    }

    /// The plan for `capture`: into each event's own channel, or all into `channel`; messages by
    /// `skippingUsers` (bots that will answer again) and what acts on them are left out.
    public init(_ capture: EventCapture, channel: ChannelId? = nil, skippingUsers: Set<String> = []) {
        var sent: Set<String> = []
        for line in capture.lines {
            let event = line.event
            guard let cid = channel ?? event.cid ?? event.message?.cid else {
                skip("\(event.type.rawValue) events without a channel")
                continue
            }
            func step(_ userId: String?, _ action: Action) {
                steps.append(Step(line: line.number, cid: cid, userId: userId, recordedAt: event.createdAt, action: action))
            }
            switch event.type {
            case .messageNew, .notificationMessageNew:
                guard let message = event.message, let author = message.user else {
                    skip("\(event.type.rawValue) events without a message and its user")
                    continue
                }
                guard !sent.contains(message.id) else {
                    skip("copies of messages already in the replay (notification.message_new beside message.new)")
                    continue
                }
                guard !skippingUsers.contains(author.id) else {
                    skip("messages by \(author.id)")
                    continue
                }
                guard message.type != .error, message.type != .ephemeral, message.type != .system else {
                    skip("\(message.type.rawValue) messages (the server makes them)")
                    continue
                }
                sent.insert(message.id)
                make(author)
                join(cid, author.id)
                // Mentioned users must exist where the message goes; they need not be members.
                message.mentionedUsers.forEach { make($0) }
                let parent = message.parentId.flatMap { sent.contains($0) ? $0 : nil }
                if message.parentId != nil, parent == nil { skip("threads of replies whose parent is not in the capture (sent as channel messages)") }
                step(
                    author.id,
                    .send(
                        messageId: message.id, text: message.text, attachments: attachments(of: message), parentId: parent,
                        quotedMessageId: message.quotedMessageId.flatMap { sent.contains($0) ? $0 : nil },
                        showInChannel: parent == nil ? nil : message.showInChannel, mentionedUserIds: message.mentionedUsers.map(\.id),
                        isSilent: message.isSilent ?? false, extraData: message.extraData))
            case .messageUpdated:
                guard let message = event.message, sent.contains(message.id) else {
                    skip("edits of messages the replay does not send")
                    continue
                }
                step(message.user?.id, .edit(messageId: message.id, text: message.text, attachments: attachments(of: message), extraData: message.extraData))
            case .messageDeleted:
                guard let message = event.message, sent.contains(message.id) else {
                    skip("deletions of messages the replay does not send")
                    continue
                }
                step(nil, .delete(messageId: message.id, hard: event.hardDelete ?? false))
            case .reactionNew, .reactionUpdated, .reactionDeleted:
                guard let reaction = event.reaction, let messageId = reaction.messageId ?? event.message?.id, sent.contains(messageId),
                    let userId = event.reactingUserId
                else {
                    skip("reactions to messages the replay does not send")
                    continue
                }
                make(reaction.user ?? event.user.flatMap { $0.id == userId ? $0 : nil } ?? User(id: userId))
                join(cid, userId)
                step(
                    userId,
                    event.type == .reactionDeleted
                        ? .unreact(messageId: messageId, type: reaction.type)
                        : .react(messageId: messageId, type: reaction.type, score: reaction.score ?? 1, extraData: reaction.extraData))
            default:
                skip("\(event.type.rawValue) events")
            }
        }
    }

    /// The attachments to send again. Link previews are left out: the server makes them again
    /// from the text, as it did the first time.
    private mutating func attachments(of message: Message) -> [JSONObject] {
        var kept: [JSONObject] = []
        for attachment in message.attachments {
            let json = attachment.rawJSON
            if json["og_scrape_url"] != nil {
                skip("link previews (the server makes them again from the text)")
            } else {
                kept.append(json)
            }
        }
        return kept
    }

    /// Adds `user` to the users to make, once, with its name, image and custom fields (not its
    /// role: a replay gives no one rights they did not have here).
    private mutating func make(_ user: User) {
        guard !users.contains(where: { $0.id == user.id }) else { return }
        users.append(User(id: user.id, name: user.name, imageURL: user.imageURL, extraData: user.extraData))
    }

    /// Adds `userId`'s membership of `cid` to those to make, once.
    private mutating func join(_ cid: ChannelId, _ userId: String) {
        guard !memberships.contains(where: { $0.cid == cid && $0.userId == userId }) else { return }
        memberships.append((cid, userId))
    }

    private mutating func skip(_ reason: String) {
        if let index = skipped.firstIndex(where: { $0.reason == reason }) {
            skipped[index].count += 1
        } else {
            skipped.append((reason, 1))
        }
    }
}
