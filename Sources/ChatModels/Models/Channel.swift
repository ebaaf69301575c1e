@_spi(JSONEngine) import ChatJSON
import Foundation

/// A channel as the API returns it (`ChannelResponse`).
public struct Channel: JSONModel, ReaderDecodable, Hashable, Identifiable, Codable {
    enum Key: String, CaseIterable, Sendable {
        case cid, type, id, name, config, frozen, disabled
        case createdBy = "created_by", memberCount = "member_count", createdAt = "created_at"
        case updatedAt = "updated_at", lastMessageAt = "last_message_at", truncatedAt = "truncated_at", deletedAt = "deleted_at"
    }
    static let keys = KeyTable<Key>()
    static let customFilter = MemberFilter(excluding: keys.names)

    /// The full id.
    public var cid: ChannelId
    /// The channel's name (a custom field the UIs read).
    public var name: String?
    /// Who created it.
    public var createdBy: User?
    /// Number of members.
    public var memberCount: Int?
    /// When it was created.
    public var createdAt: Date?
    /// When it last changed.
    public var updatedAt: Date?
    /// When the last message arrived.
    public var lastMessageAt: Date?
    /// When its history was last truncated.
    public var truncatedAt: Date?
    /// When it was deleted (in the answer to a delete and in `channel.deleted`).
    public var deletedAt: Date?
    /// Whether the channel is frozen.
    public var isFrozen: Bool?
    /// Whether the channel is disabled.
    public var isDisabled: Bool?
    /// The channel type's configuration, as sent.
    public var config: JSONObject?
    private var custom: LazyMembers

    /// Custom fields and the server's other channel fields (`own_capabilities`, ...).
    public var extraData: [String: RawJSON] {
        get { custom.value }
        set { custom.value = newValue }
    }

    /// The full id (`Identifiable`).
    public var id: ChannelId { cid }

    /// A channel with the given fields.
    public init(
        cid: ChannelId, name: String? = nil, createdBy: User? = nil, memberCount: Int? = nil, createdAt: Date? = nil,
        updatedAt: Date? = nil, lastMessageAt: Date? = nil, truncatedAt: Date? = nil, deletedAt: Date? = nil, isFrozen: Bool? = nil,
        isDisabled: Bool? = nil, config: JSONObject? = nil, extraData: [String: RawJSON] = [:]
    ) {
        self.cid = cid
        self.name = name
        self.createdBy = createdBy
        self.memberCount = memberCount
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastMessageAt = lastMessageAt
        self.truncatedAt = truncatedAt
        self.deletedAt = deletedAt
        self.isFrozen = isFrozen
        self.isDisabled = isDisabled
        self.config = config
        self.custom = LazyMembers(extraData)
    }

    /// Reads a channel from JSON bytes.
    public init(jsonData: Data) throws(JSONError) { self = try Self.read(jsonData) }

    /// `cid` may also be given as `type` + `id`.
    package init(reader: JSONReader, node: Int) throws(JSONError) {
        let object = try reader.readObject(node)
        var cidValue: ChannelId?
        var type: String?
        var id: String?
        var hasCustom = false
        self.init(cid: ChannelId(type: .messaging, id: "_"))
        for (keyNode, value) in reader.members(object) {
            guard let key = Channel.keys.match(reader, keyNode) else {
                hasCustom = true
                continue
            }
            do throws(JSONError) {
                switch key {
                case .cid: cidValue = try reader.readChannelId(value)
                case .type: type = try reader.readString(value)
                case .id: id = try reader.readString(value)
                case .name: name = try reader.readOptionalString(value)
                case .createdBy: try reader.readOptionalModel(into: &createdBy, value)
                case .memberCount: memberCount = try reader.readOptionalInt(value)
                case .createdAt: createdAt = try reader.readOptionalDate(value)
                case .updatedAt: updatedAt = try reader.readOptionalDate(value)
                case .lastMessageAt: lastMessageAt = try reader.readOptionalDate(value)
                case .truncatedAt: truncatedAt = try reader.readOptionalDate(value)
                case .deletedAt: deletedAt = try reader.readOptionalDate(value)
                case .frozen: isFrozen = try reader.readOptionalBool(value)
                case .disabled: isDisabled = try reader.readOptionalBool(value)
                case .config: config = reader.isNull(value) ? nil : try reader.rawJSON(reader.readObject(value)).objectValue
                }
            } catch {
                throw error.prefixed(key.rawValue)
            }
        }
        if let cidValue {
            cid = cidValue
        } else if let type, let id {
            cid = ChannelId(type: ChannelType(rawValue: type), id: id)
        } else {
            throw .missing("cid")
        }
        if hasCustom { custom = reader.lazyMembers(object, filter: Channel.customFilter) }
    }

    /// The channel's JSON.
    public var json: RawJSON {
        var builder = JSONObjectBuilder()
        builder.set("id", cid.id)
        builder.set("type", cid.type.rawValue)
        builder.set("cid", cid.rawValue)
        builder.set("name", name)
        builder.set("created_by", createdBy)
        builder.set("member_count", memberCount)
        builder.set("created_at", createdAt)
        builder.set("updated_at", updatedAt)
        builder.set("last_message_at", lastMessageAt)
        builder.set("truncated_at", truncatedAt)
        builder.set("deleted_at", deletedAt)
        builder.set("frozen", isFrozen)
        builder.set("disabled", isDisabled)
        builder.set("config", config.map(RawJSON.object))
        builder.merge(extraData)
        return builder.json
    }

    /// Decodes through any decoder.
    public init(from decoder: any Decoder) throws { self = try .decoded(from: decoder) }
    /// Encodes the flat JSON form.
    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}
