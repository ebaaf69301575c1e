@_spi(JSONEngine) import ChatJSON
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
    public var id: String {
        get { idField.value(in: source) ?? "" }
        set { idField = TextField(newValue) }
    }
    /// Display name.
    public var name: String? {
        get { nameField.value(in: source) }
        set { nameField = TextField(newValue) }
    }
    /// The avatar URL as sent.
    public var image: String? {
        get { imageField.value(in: source) }
        set { imageField = TextField(newValue) }
    }
    /// Role (`user`, `admin`, ...).
    public var role: String? {
        get { roleField.value(in: source) }
        set { roleField = TextField(newValue) }
    }
    // The text fields stay in the document they were read from until read (see `TextField`).
    private var idField: TextField
    private var nameField = TextField.none
    private var imageField = TextField.none
    private var roleField = TextField.none
    /// The document the user was read from, while any of its text fields is still unread there.
    private var source = Data()
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
        self.idField = TextField(id)
        self.nameField = TextField(name)
        self.imageField = TextField(imageURL?.absoluteString)
        self.roleField = TextField(role)
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastActiveAt = lastActiveAt
        self.isOnline = isOnline
        self.isBanned = isBanned
        self.custom = LazyMembers(extraData)
    }

    /// Reads a user from JSON bytes.
    public init(jsonData: Data) throws(JSONError) { self = try Self.read(jsonData) }

    /// The user at `node`.
    package init(reader: JSONReader, node: Int) throws(JSONError) {
        self.init(unread: ())
        try User.read(into: &self, reader, node)
    }

    /// An empty user for ``read(into:_:_:)`` to fill.
    private init(unread: Void) {
        // The optional fields start as nil.
        idField = TextField("")
        custom = LazyMembers()
    }

    /// The user at `node` (or nil for `null`) read straight into `slot` rather than returned
    /// and then stored (see ``read(into:_:_:)``).
    package static func read(into slot: inout User?, _ reader: JSONReader, _ node: Int) throws(JSONError) {
        if reader.isNull(node) {
            slot = nil
            return
        }
        slot = User(unread: ())
        try read(into: &slot!, reader, node)
    }

    /// Fills `user` in place: building a `User` and returning or assigning it made the
    /// optimizer copy the whole struct (a retain and a release per field) on the way out.
    private static func read(into user: inout User, _ reader: JSONReader, _ node: Int) throws(JSONError) {
        let object = try reader.readObject(node)
        var hasId = false
        var hasCustom = false
        for (keyNode, value) in reader.members(object) {
            guard let key = User.keys.match(reader, keyNode) else {
                hasCustom = true
                continue
            }
            do throws(JSONError) {
                switch key {
                case .id:
                    user.idField = try reader.readText(value)
                    hasId = true
                case .name: user.nameField = try reader.readOptionalText(value)
                case .image: user.imageField = try reader.readOptionalText(value)
                case .role: user.roleField = try reader.readOptionalText(value)
                case .createdAt: user.createdAt = try reader.readOptionalDate(value)
                case .updatedAt: user.updatedAt = try reader.readOptionalDate(value)
                case .lastActive: user.lastActiveAt = try reader.readOptionalDate(value)
                case .online: user.isOnline = try reader.readOptionalBool(value)
                case .banned: user.isBanned = try reader.readOptionalBool(value)
                }
            } catch {
                throw error.prefixed(key.rawValue)
            }
        }
        guard hasId else { throw .missing("id") }
        if hasCustom { user.custom = reader.lazyMembers(object, filter: User.customFilter) }
        user.source = reader.source
    }

    /// Equal when every field is, text compared as text wherever it is kept.
    public static func == (lhs: User, rhs: User) -> Bool {
        lhs.id == rhs.id && lhs.name == rhs.name && lhs.image == rhs.image && lhs.role == rhs.role
            && lhs.createdAt == rhs.createdAt && lhs.updatedAt == rhs.updatedAt && lhs.lastActiveAt == rhs.lastActiveAt
            && lhs.isOnline == rhs.isOnline && lhs.isBanned == rhs.isBanned && lhs.custom == rhs.custom
    }

    /// Hashes the fields `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(name)
        hasher.combine(image)
        hasher.combine(role)
        hasher.combine(createdAt)
        hasher.combine(updatedAt)
        hasher.combine(lastActiveAt)
        hasher.combine(isOnline)
        hasher.combine(isBanned)
        hasher.combine(custom)
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
