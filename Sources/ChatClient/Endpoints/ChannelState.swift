import ChatModels
import Foundation

/// A channel with its recent messages and members, as `query` answers it.
public struct ChannelState: Sendable {
    /// The channel.
    public var channel: Channel
    /// The latest messages, oldest first.
    public var messages: [Message]
    /// The messages pinned now, the most recently pinned first (at most 10).
    public var pinnedMessages: [Message]
    /// The members.
    public var members: [Member]
    /// The querying user's membership (nil when it is not a member, or the query was for no user).
    public var membership: Member?
    /// How many connections watch it.
    public var watcherCount: Int
    /// Each member's read state and unread messages.
    public var reads: [ChannelRead]
    /// Whether the querying user hid the channel (``ChatClient/hideChannel(_:clearingHistory:as:)``).
    public var isHidden: Bool

    init(json: JSONObject, operation: String) throws {
        guard let channelJSON = json["channel"] else {
            throw ChatClientError(code: .invalidResponse, message: "\(operation) answered without a channel")
        }
        do {
            channel = try Channel(json: channelJSON)
            messages = try (json["messages"]?.arrayValue ?? []).map { try Message(json: $0) }
            pinnedMessages = try (json["pinned_messages"]?.arrayValue ?? []).map { try Message(json: $0) }
            members = try (json["members"]?.arrayValue ?? []).map { try Member(json: $0) }
            membership = try json["membership"].map { try Member(json: $0) }
        } catch {
            throw ChatClientError(code: .invalidResponse, message: "\(operation) answered a channel that cannot be read: \(error)")
        }
        watcherCount = json["watcher_count"]?.intValue ?? 0
        reads = (json["read"]?.arrayValue ?? []).compactMap { $0.objectValue.map(ChannelRead.init(json:)) }
        isHidden = json["hidden"]?.boolValue ?? false
    }
}

/// A message to send: text, attachments (ready payloads or local files), threads, custom fields.
public struct OutgoingMessage: Sendable {
    /// The message id; one is generated so a retried send is stored once.
    public var id: String
    /// The text.
    public var text: String
    /// Attachments; local files are uploaded first.
    public var attachments: [AnyAttachmentPayload]
    /// The thread parent, for a reply.
    public var parentId: String?
    /// The quoted message.
    public var quotedMessageId: String?
    /// Whether a thread reply also shows in the channel.
    public var showInChannel: Bool?
    /// Users to mention.
    public var mentionedUserIds: [String]
    /// Sent without push or unread increments.
    public var isSilent: Bool
    /// Skips push notifications.
    public var skipPush: Bool
    /// Sent without the preview the service adds for the first link of the text.
    public var skipEnrichURL: Bool
    /// Sent pinned in its channel, with the sender as who pinned it.
    public var isPinned: Bool
    /// When a pin sent with the message ends; nil pins it for good.
    public var pinExpires: Date?
    /// The poll the message carries (``ChatClient/createPoll(name:options:description:isAnonymous:isSingleChoice:maximumVotes:allowsAnswers:extraData:as:)``), created by its sender.
    public var pollId: String?
    /// The location the message shares (``ChatChannel/shareLocation(latitude:longitude:until:text:deviceId:as:)``).
    public var sharedLocation: LocationShare?
    /// Custom fields, flat on the wire.
    public var extraData: [String: RawJSON]

    /// A message.
    public init(
        id: String = UUID().uuidString.lowercased(), text: String = "", attachments: [AnyAttachmentPayload] = [], parentId: String? = nil,
        quotedMessageId: String? = nil, showInChannel: Bool? = nil, mentionedUserIds: [String] = [], isSilent: Bool = false,
        skipPush: Bool = false, skipEnrichURL: Bool = false, isPinned: Bool = false, pinExpires: Date? = nil, pollId: String? = nil,
        sharedLocation: LocationShare? = nil, extraData: [String: RawJSON] = [:]
    ) {
        self.id = id
        self.text = text
        self.attachments = attachments
        self.parentId = parentId
        self.quotedMessageId = quotedMessageId
        self.showInChannel = showInChannel
        self.mentionedUserIds = mentionedUserIds
        self.isSilent = isSilent
        self.skipPush = skipPush
        self.skipEnrichURL = skipEnrichURL
        self.isPinned = isPinned
        self.pinExpires = pinExpires
        self.pollId = pollId
        self.sharedLocation = sharedLocation
        self.extraData = extraData
    }
}
