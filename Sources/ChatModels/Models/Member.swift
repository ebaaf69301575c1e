@_spi(JSONEngine) import ChatJSON
import Foundation

/// A channel member.
public struct Member: JSONModel, ReaderDecodable, Hashable, Codable {
    enum Key: String, CaseIterable, Sendable {
        case user
        case userId = "user_id", channelRole = "channel_role", createdAt = "created_at", updatedAt = "updated_at"
    }
    static let keys = KeyTable<Key>()
    static let customFilter = MemberFilter(excluding: keys.names)

    /// The member's user id.
    public var userId: String
    /// The member's user.
    public var user: User?
    /// The role in the channel (`channel_member`, `channel_moderator`, ...).
    public var channelRole: String?
    /// When the user joined.
    public var createdAt: Date?
    /// When the membership changed.
    public var updatedAt: Date?
    private var custom: LazyMembers

    /// Custom fields and the server's other member fields (`banned`, `notifications_muted`, ...).
    public var extraData: [String: RawJSON] {
        get { custom.value }
        set { custom.value = newValue }
    }

    /// A member with the given fields.
    public init(
        userId: String, user: User? = nil, channelRole: String? = nil, createdAt: Date? = nil, updatedAt: Date? = nil,
        extraData: [String: RawJSON] = [:]
    ) {
        self.userId = userId
        self.user = user
        self.channelRole = channelRole
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.custom = LazyMembers(extraData)
    }

    /// Reads a member from JSON bytes.
    public init(jsonData: Data) throws(JSONError) { self = try Self.read(jsonData) }

    package init(reader: JSONReader, node: Int) throws(JSONError) {
        let object = try reader.readObject(node)
        var userId: String?
        var hasCustom = false
        self.init(userId: "")
        for (keyNode, value) in reader.members(object) {
            guard let key = Member.keys.match(reader, keyNode) else {
                hasCustom = true
                continue
            }
            do throws(JSONError) {
                switch key {
                case .userId: userId = try reader.readOptionalString(value)
                case .user: try reader.readOptionalModel(into: &user, value)
                case .channelRole: channelRole = try reader.readOptionalString(value)
                case .createdAt: createdAt = try reader.readOptionalDate(value)
                case .updatedAt: updatedAt = try reader.readOptionalDate(value)
                }
            } catch {
                throw error.prefixed(key.rawValue)
            }
        }
        guard let resolved = userId ?? user?.id else { throw .missing("user_id") }
        self.userId = resolved
        if hasCustom { custom = reader.lazyMembers(object, filter: Member.customFilter) }
    }

    /// The member's JSON.
    public var json: RawJSON {
        var builder = JSONObjectBuilder()
        builder.set("user_id", userId)
        builder.set("user", user)
        builder.set("channel_role", channelRole)
        builder.set("created_at", createdAt)
        builder.set("updated_at", updatedAt)
        builder.merge(extraData)
        return builder.json
    }

    /// Decodes through any decoder.
    public init(from decoder: any Decoder) throws { self = try .decoded(from: decoder) }
    /// Encodes the flat JSON form.
    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}
