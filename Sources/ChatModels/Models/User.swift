import Foundation

/// A chat user. Fields the API defines are typed; everything else (`birthland`, the unread
/// counters of `me`, ...) is custom data in ``extraData`` and is written back flat.
public struct User: JSONModel, ReaderDecodable, Hashable, Identifiable, Codable {
    enum Key: String, CaseIterable, Sendable {
        case id, name, image, role, online, banned
        case createdAt = "created_at", updatedAt = "updated_at", lastActive = "last_active"
    }
    static let keys = KeyTable<Key>()
    static let customFilter = MemberFilter(excluding: keys.names)

    /// The user id.
    public var id: String
    /// Display name.
    public var name: String?
    /// The avatar URL as sent.
    public var image: String?
    /// Role (`user`, `admin`, ...).
    public var role: String?
    /// When the user was created.
    public var createdAt: Date?
    /// When the user was last updated.
    public var updatedAt: Date?
    /// When the user was last active.
    public var lastActiveAt: Date?
    /// Whether the user is connected now.
    public var isOnline: Bool?
    /// Whether the user is banned.
    public var isBanned: Bool?
    private var custom: LazyMembers

    /// Custom fields, flat on the wire.
    public var extraData: [String: RawJSON] {
        get { custom.value }
        set { custom.value = newValue }
    }

    /// The avatar as a URL.
    public var imageURL: URL? {
        get { image.flatMap(URL.init(string:)) }
        set { image = newValue?.absoluteString }
    }

    /// A user with the given fields.
    public init(
        id: String, name: String? = nil, imageURL: URL? = nil, role: String? = nil, createdAt: Date? = nil,
        updatedAt: Date? = nil, lastActiveAt: Date? = nil, isOnline: Bool? = nil, isBanned: Bool? = nil,
        extraData: [String: RawJSON] = [:]
    ) {
        self.init(
            id: id, name: name, image: imageURL?.absoluteString, role: role, createdAt: createdAt, updatedAt: updatedAt,
            lastActiveAt: lastActiveAt, isOnline: isOnline, isBanned: isBanned, custom: LazyMembers(extraData))
    }

    /// Every stored field, for the public initializer and the reader.
    private init(
        id: String, name: String?, image: String?, role: String?, createdAt: Date?, updatedAt: Date?, lastActiveAt: Date?,
        isOnline: Bool?, isBanned: Bool?, custom: LazyMembers
    ) {
        self.id = id
        self.name = name
        self.image = image
        self.role = role
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastActiveAt = lastActiveAt
        self.isOnline = isOnline
        self.isBanned = isBanned
        self.custom = custom
    }

    /// Reads a user from JSON bytes.
    public init(jsonData: Data) throws(JSONError) { self = try Self.read(jsonData) }

    /// The user at `node`. The fields are read into locals and the user is initialized once
    /// at the end: building a `User` and returning it made the optimizer copy the whole struct
    /// (a retain per field) on the way out.
    init(reader: JSONReader, node: Int) throws(JSONError) {
        let object = try reader.readObject(node)
        var id: String?
        var name: String?, image: String?, role: String?
        var createdAt: Date?, updatedAt: Date?, lastActiveAt: Date?
        var isOnline: Bool?, isBanned: Bool?
        var hasCustom = false
        for (keyNode, value) in reader.members(object) {
            guard let key = User.keys.match(reader, keyNode) else {
                hasCustom = true
                continue
            }
            do throws(JSONError) {
                switch key {
                case .id: id = try reader.readString(value)
                case .name: name = try reader.readOptionalString(value)
                case .image: image = try reader.readOptionalString(value)
                case .role: role = try reader.readOptionalString(value)
                case .createdAt: createdAt = try reader.readOptionalDate(value)
                case .updatedAt: updatedAt = try reader.readOptionalDate(value)
                case .lastActive: lastActiveAt = try reader.readOptionalDate(value)
                case .online: isOnline = try reader.readOptionalBool(value)
                case .banned: isBanned = try reader.readOptionalBool(value)
                }
            } catch {
                throw error.prefixed(key.rawValue)
            }
        }
        guard let id else { throw .missing("id") }
        self.init(
            id: id, name: name, image: image, role: role, createdAt: createdAt, updatedAt: updatedAt,
            lastActiveAt: lastActiveAt, isOnline: isOnline, isBanned: isBanned,
            custom: hasCustom ? reader.lazyMembers(object, filter: User.customFilter) : LazyMembers())
    }

    /// The user's JSON, custom fields flat.
    public var json: RawJSON {
        var builder = JSONObjectBuilder()
        builder.set("id", id)
        builder.set("name", name)
        builder.set("image", image)
        builder.set("role", role)
        builder.set("created_at", createdAt)
        builder.set("updated_at", updatedAt)
        builder.set("last_active", lastActiveAt)
        builder.set("online", isOnline)
        builder.set("banned", isBanned)
        builder.merge(extraData)
        return builder.json
    }

    /// Decodes through any decoder.
    public init(from decoder: any Decoder) throws { self = try .decoded(from: decoder) }
    /// Encodes the flat JSON form.
    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}
