@_spi(JSONEngine) import ChatJSON
import Foundation

/// One WebSocket (or `/sync`) event.
///
/// Known fields are typed; the event's bytes are kept in ``rawData``, so an event type this
/// library does not know is delivered intact rather than dropped. For unknown event types a
/// field that does not fit its usual shape is left raw instead of failing the event.
public struct Event: JSONModel, ReaderDecodable, Hashable, Codable, FieldBox {
    enum Key: String, CaseIterable, Sendable {
        case type, cid, message, user, reaction, member, channel, me, error
        case createdAt = "created_at", connectionId = "connection_id", hardDelete = "hard_delete", parentId = "parent_id"
    }
    static let keys = KeyTable<Key>()
    static let customFilter = MemberFilter(excluding: keys.names)

    /// The event types whose fields are read strictly; other types are read leniently.
    enum KnownType: String, CaseIterable, Sendable {
        case healthCheck = "health.check", connectionError = "connection.error"
        case messageNew = "message.new", messageUpdated = "message.updated", messageDeleted = "message.deleted"
        case messageRead = "message.read", messageUndeleted = "message.undeleted"
        case notificationMessageNew = "notification.message_new", notificationAddedToChannel = "notification.added_to_channel"
        case notificationRemovedFromChannel = "notification.removed_from_channel"
        case notificationMarkRead = "notification.mark_read", notificationMarkUnread = "notification.mark_unread"
        case notificationChannelDeleted = "notification.channel_deleted"
        case notificationChannelTruncated = "notification.channel_truncated", notificationInvited = "notification.invited"
        case reactionNew = "reaction.new", reactionUpdated = "reaction.updated", reactionDeleted = "reaction.deleted"
        case memberAdded = "member.added", memberUpdated = "member.updated", memberRemoved = "member.removed"
        case typingStart = "typing.start", typingStop = "typing.stop"
        case channelCreated = "channel.created", channelUpdated = "channel.updated", channelDeleted = "channel.deleted"
        case channelTruncated = "channel.truncated", channelHidden = "channel.hidden", channelVisible = "channel.visible"
        case userWatchingStart = "user.watching.start", userWatchingStop = "user.watching.stop"
        case userUpdated = "user.updated", userPresenceChanged = "user.presence.changed"
    }
    /// Matched on the type's bytes: hashing the type string took as long as reading a field.
    static let knownTypes = KeyTable<KnownType>()

    /// The event type.
    public var type: EventType {
        get { storage.value.type }
        set { update { $0.type = newValue } }
    }

    /// When the server created it.
    public var createdAt: Date? {
        get { storage.value.createdAt }
        set { update { $0.createdAt = newValue } }
    }

    /// The channel, for channel events (`*` in health checks reads as `nil`).
    public var cid: ChannelId? {
        get { storage.value.cid }
        set { update { $0.cid = newValue } }
    }

    /// The message, for message and reaction events.
    public var message: Message? {
        get { storage.value.message }
        set { update { $0.message = newValue } }
    }

    /// The acting user.
    public var user: User? {
        get { storage.value.user }
        set { update { $0.user = newValue } }
    }

    /// The reaction, for reaction events.
    public var reaction: Reaction? {
        get { storage.value.reaction?.value }
        set { update { $0.reaction = newValue.map(IndirectBox.init) } }
    }

    /// The member, for member events.
    public var member: Member? {
        get { storage.value.member?.value }
        set { update { $0.member = newValue.map(IndirectBox.init) } }
    }

    /// The channel, for channel and notification events.
    public var channel: Channel? {
        get { storage.value.channel?.value }
        set { update { $0.channel = newValue.map(IndirectBox.init) } }
    }

    /// The connection id, on `health.check`.
    public var connectionId: String? {
        get { storage.value.connectionId }
        set { update { $0.connectionId = newValue } }
    }

    /// The connected user, on the first `health.check`.
    public var me: User? {
        get { storage.value.me?.value }
        set { update { $0.me = newValue.map(IndirectBox.init) } }
    }

    /// The error, on `connection.error`.
    public var error: APIErrorPayload? {
        get { storage.value.error?.value }
        set { update { $0.error = newValue.map(IndirectBox.init) } }
    }

    /// Whether a `message.deleted` was a hard delete.
    public var hardDelete: Bool? {
        get { storage.value.hardDelete }
        set { update { $0.hardDelete = newValue } }
    }

    /// The thread, for typing events in threads.
    public var parentId: String? {
        get { storage.value.parentId }
        set { update { $0.parentId = newValue } }
    }

    /// The event's JSON bytes exactly as received (or as built, for events made in code).
    public var rawData: Data { storage.value.rawData }
    private var custom: LazyMembers {
        get { storage.value.custom }
        set { update { $0.custom = newValue } }
    }

    /// Every other field (unread counters, `channel_custom`, custom event data, ...).
    public var extraData: [String: RawJSON] {
        get { custom.value }
        set { custom.value = newValue }
    }

    /// The fields (see `Event+Fields.swift`).
    var storage: IndirectBox<Fields>

    /// The event as a JSON object.
    public var rawJSON: JSONObject { (try? JSONParser().parse(rawData).objectValue) ?? JSONObject() }

    /// An event with the given fields; its `rawData` is built from them.
    public init(
        type: EventType, createdAt: Date? = nil, cid: ChannelId? = nil, message: Message? = nil, user: User? = nil,
        reaction: Reaction? = nil, member: Member? = nil, channel: Channel? = nil, connectionId: String? = nil,
        me: User? = nil, error: APIErrorPayload? = nil, hardDelete: Bool? = nil, parentId: String? = nil,
        extraData: [String: RawJSON] = [:]
    ) {
        var fields = Fields(
            type: type, createdAt: createdAt, cid: cid, message: message, user: user,
            reaction: reaction.map(IndirectBox.init), member: member.map(IndirectBox.init),
            channel: channel.map(IndirectBox.init), connectionId: connectionId, me: me.map(IndirectBox.init),
            error: error.map(IndirectBox.init), hardDelete: hardDelete, parentId: parentId,
            rawData: Data(), custom: LazyMembers(extraData))
        // The bytes are written from the fields, which `builtJSON` reads through `self`.
        storage = IndirectBox(fields)
        fields.rawData = JSONWriter.data(.object(builtJSON))
        storage = IndirectBox(fields)
    }

    /// Reads an event from a WebSocket text frame or any JSON bytes.
    public init(jsonData: Data) throws(JSONError) { self = try Self.read(jsonData) }

    /// Parses and reads one event from a WebSocket text frame.
    public static func decode(frame: Data) throws(JSONError) -> Event { try read(frame) }

    /// `type` is required; known event types are read strictly.
    package init(reader: JSONReader, node: Int) throws(JSONError) {
        var fields = Fields(type: EventType(rawValue: ""), rawData: Data())  // filled in by `read`
        try Event.read(into: &fields, reader, node)
        storage = IndirectBox(fields)
    }

    /// Fills `fields` with the event at `node`, in place and static, as Message's.
    private static func read(into fields: inout Fields, _ reader: JSONReader, _ node: Int) throws(JSONError) {
        let object = try reader.readObject(node)
        fields.rawData = node == 0 ? reader.source : reader.slice(object)
        // One pass over the members: the type decides whether a field that does not read is an
        // error (a known type) or stays custom (an unknown one), so the first such failure
        // waits for the type, which may come anywhere in the object.
        var typeNode: Int?
        var firstFailure: JSONError?
        var hasCustom = false
        for (keyNode, value) in reader.members(object) {
            guard let key = Event.keys.match(reader, keyNode) else {
                hasCustom = true
                continue
            }
            do throws(JSONError) {
                switch key {
                case .type: typeNode = value
                case .createdAt: fields.createdAt = try reader.readOptionalDate(value)
                case .cid:
                    // Health checks carry "*"; anything that is not a channel id is simply not one,
                    // and stays in extraData for event types read leniently.
                    if reader.kind(value) == .string { fields.cid = try? reader.readChannelId(value) }
                    if fields.cid == nil { hasCustom = true }
                case .message: fields.message = try reader.readOptionalModel(Message.self, value)
                case .user: try reader.readOptionalModel(into: &fields.user, value)
                case .reaction: fields.reaction = try reader.readOptionalModel(Reaction.self, value).map(IndirectBox.init)
                case .member: fields.member = try reader.readOptionalModel(Member.self, value).map(IndirectBox.init)
                case .channel: fields.channel = try reader.readOptionalModel(Channel.self, value).map(IndirectBox.init)
                case .connectionId: fields.connectionId = try reader.readOptionalString(value)
                case .me: fields.me = try reader.readOptionalModel(User.self, value).map(IndirectBox.init)
                case .error: fields.error = try reader.readOptionalModel(APIErrorPayload.self, value).map(IndirectBox.init)
                case .hardDelete: fields.hardDelete = try reader.readOptionalBool(value)
                case .parentId: fields.parentId = try reader.readOptionalString(value)
                }
            } catch let failure {
                if firstFailure == nil { firstFailure = failure.prefixed(key.rawValue) }
                // An unknown event type may use a known field name differently: keep the raw value.
                hasCustom = true
            }
        }
        guard let typeNode else { throw .missing("type") }
        // A known type is taken from its table, as a literal: no string is made for it.
        let known = reader.kind(typeNode) == .string ? Event.knownTypes.match(reader, typeNode) : nil
        let strict = known != nil
        if let known {
            fields.type = EventType(rawValue: known.rawValue)
        } else {
            do {
                fields.type = EventType(rawValue: try reader.readString(typeNode))
            } catch {
                throw error.prefixed("type")
            }
        }
        if strict, let firstFailure { throw firstFailure }
        if hasCustom {
            // Before `cid` is filled in below: a `cid` member that was not read stays custom.
            let filter = strict ? Event.customFilter : MemberFilter(excluding: Event.lenientlyRead(fields))
            fields.custom = reader.lazyMembers(object, filter: filter)
        }
        if fields.cid == nil { fields.cid = fields.channel?.value.cid ?? fields.message?.cid }
    }

    /// For lenient events: the known keys that were read successfully (the rest stay custom).
    private static func lenientlyRead(_ fields: Fields) -> Set<String> {
        var read: Set<String> = ["type"]
        if fields.createdAt != nil { read.insert("created_at") }
        if fields.cid != nil { read.insert("cid") }
        if fields.message != nil { read.insert("message") }
        if fields.user != nil { read.insert("user") }
        if fields.reaction != nil { read.insert("reaction") }
        if fields.member != nil { read.insert("member") }
        if fields.channel != nil { read.insert("channel") }
        if fields.connectionId != nil { read.insert("connection_id") }
        if fields.me != nil { read.insert("me") }
        if fields.error != nil { read.insert("error") }
        if fields.hardDelete != nil { read.insert("hard_delete") }
        if fields.parentId != nil { read.insert("parent_id") }
        return read
    }

    /// The event's JSON, reflecting any changes made to its fields.
    public var json: RawJSON { .object(builtJSON) }

    private var builtJSON: JSONObject {
        var builder = JSONObjectBuilder()
        builder.set("type", type.rawValue)
        builder.set("created_at", createdAt)
        builder.set("cid", cid?.rawValue)
        builder.set("channel_type", cid?.type.rawValue)
        builder.set("channel_id", cid?.id)
        builder.set("message", message)
        builder.set("message_id", message?.id)
        builder.set("user", user)
        builder.set("reaction", reaction)
        builder.set("member", member)
        builder.set("channel", channel)
        builder.set("connection_id", connectionId)
        builder.set("me", me)
        builder.set("error", error)
        builder.set("hard_delete", hardDelete)
        builder.set("parent_id", parentId)
        builder.merge(extraData)
        return builder.object
    }

    /// Equal when the JSON is equal.
    public static func == (lhs: Event, rhs: Event) -> Bool { lhs.json == rhs.json }

    /// Hashes the JSON, matching `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(json) }

    /// Decodes through any decoder.
    public init(from decoder: any Decoder) throws { self = try .decoded(from: decoder) }
    /// Encodes the event's JSON.
    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}
