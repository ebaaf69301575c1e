@_spi(JSONEngine) import ChatJSON
import Foundation

/// A reaction on a message (`like`, `love`, or any type of your own).
public struct Reaction: JSONModel, ReaderDecodable, Hashable, Codable {
    enum Key: String, CaseIterable, Sendable {
        case type, score, user
        case messageId = "message_id", userId = "user_id", createdAt = "created_at", updatedAt = "updated_at"
    }
    static let keys = KeyTable<Key>()
    static let customFilter = MemberFilter(excluding: keys.names)

    /// The reaction type.
    public var type: String
    /// The score (1 unless the reaction counts up, like claps).
    public var score: Int?
    /// The message it belongs to.
    public var messageId: String?
    /// Who reacted.
    public var userId: String?
    /// Who reacted, in full.
    public var user: User?
    /// When it was added.
    public var createdAt: Date?
    /// When it last changed.
    public var updatedAt: Date?
    private var custom: LazyMembers

    /// Custom fields.
    public var extraData: [String: RawJSON] {
        get { custom.value }
        set { custom.value = newValue }
    }

    /// A reaction with the given fields.
    public init(
        type: String, score: Int? = nil, messageId: String? = nil, userId: String? = nil, user: User? = nil,
        createdAt: Date? = nil, updatedAt: Date? = nil, extraData: [String: RawJSON] = [:]
    ) {
        self.type = type
        self.score = score
        self.messageId = messageId
        self.userId = userId
        self.user = user
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.custom = LazyMembers(extraData)
    }

    /// Reads a reaction from JSON bytes.
    public init(jsonData: Data) throws(JSONError) { self = try Self.read(jsonData) }

    package init(reader: JSONReader, node: Int) throws(JSONError) {
        let object = try reader.readObject(node)
        var type: String?
        var hasCustom = false
        self.init(type: "")
        for (keyNode, value) in reader.members(object) {
            guard let key = Reaction.keys.match(reader, keyNode) else {
                hasCustom = true
                continue
            }
            do throws(JSONError) {
                switch key {
                case .type: type = try reader.readString(value)
                case .score: score = try reader.readOptionalInt(value)
                case .messageId: messageId = try reader.readOptionalString(value)
                case .userId: userId = try reader.readOptionalString(value)
                case .user: try reader.readOptionalModel(into: &user, value)
                case .createdAt: createdAt = try reader.readOptionalDate(value)
                case .updatedAt: updatedAt = try reader.readOptionalDate(value)
                }
            } catch {
                throw error.prefixed(key.rawValue)
            }
        }
        guard let type else { throw .missing("type") }
        self.type = type
        if hasCustom { custom = reader.lazyMembers(object, filter: Reaction.customFilter) }
    }

    /// The reaction's JSON.
    public var json: RawJSON {
        var builder = JSONObjectBuilder()
        builder.set("type", type)
        builder.set("score", score)
        builder.set("message_id", messageId)
        builder.set("user_id", userId)
        builder.set("user", user)
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
