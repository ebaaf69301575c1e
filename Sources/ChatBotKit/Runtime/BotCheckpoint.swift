import ChatModels
import Foundation

/// How far a bot has handled its channels: what a restarted bot catches up from.
///
/// Every event of its channels from ``watchingSince`` up to ``handledThrough`` was handled (or
/// was not for it); of the ones after that, or shortly before, the ones in ``recentlyHandled``
/// were handled too. Saved as JSON (`{"version":1,"bot":…,"watching_since":…,"handled_through":…,
/// "recently_handled":[…],"saved_at":…}`).
public struct BotCheckpoint: Sendable, Equatable, Codable {
    /// The format's version; a file of another version is not read.
    public static let version = 1

    /// The bot it belongs to.
    public var bot: String
    /// Since when the bot has followed its channels without a gap: the first event it saw,
    /// or where its last catching up began. Nothing before it is handled on a restart.
    public var watchingSince: Date
    /// Every event up to this time (the server's clock) was handled.
    public var handledThrough: Date
    /// The keys of deliveries handled after ``handledThrough`` or just before it (message ids; an
    /// edit's or a deletion's key adds what it was), which are not handled again.
    public var recentlyHandled: [String]
    /// When it was written (this machine's clock).
    public var savedAt: Date

    /// A checkpoint.
    public init(bot: String, watchingSince: Date? = nil, handledThrough: Date, recentlyHandled: [String], savedAt: Date = Date()) {
        self.bot = bot
        self.watchingSince = min(watchingSince ?? handledThrough, handledThrough)
        self.handledThrough = handledThrough
        self.recentlyHandled = recentlyHandled
        self.savedAt = savedAt
    }

    private enum CodingKeys: String, CodingKey {
        case version, bot
        case watchingSince = "watching_since"
        case handledThrough = "handled_through"
        case recentlyHandled = "recently_handled"
        case savedAt = "saved_at"
    }

    /// Reads one, with its dates in RFC 3339.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decode(Int.self, forKey: .version)
        guard version == Self.version else {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: container, debugDescription: "version \(version) is not one this build reads (\(Self.version))")
        }
        bot = try container.decode(String.self, forKey: .bot)
        watchingSince = try Self.date(.watchingSince, in: container)
        handledThrough = try Self.date(.handledThrough, in: container)
        recentlyHandled = try container.decode([String].self, forKey: .recentlyHandled)
        savedAt = try Self.date(.savedAt, in: container)
    }

    /// Writes one, with its dates in RFC 3339.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.version, forKey: .version)
        try container.encode(bot, forKey: .bot)
        try container.encode(RFC3339.string(from: watchingSince), forKey: .watchingSince)
        try container.encode(RFC3339.string(from: handledThrough), forKey: .handledThrough)
        try container.encode(recentlyHandled, forKey: .recentlyHandled)
        try container.encode(RFC3339.string(from: savedAt), forKey: .savedAt)
    }

    private static func date(_ key: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>) throws -> Date {
        let text = try container.decode(String.self, forKey: key)
        guard let date = RFC3339.date(from: text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "\"\(text)\" is not an RFC 3339 date")
        }
        return date
    }
}

extension BotCheckpoint {
    /// The checkpoint saved at `file`; nil when there is none yet. A file that cannot be read
    /// is a ``BotError`` (`bot.checkpoint_unreadable`) saying why.
    public static func load(from file: URL) throws(BotError) -> BotCheckpoint? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        do {
            let data = try Data(contentsOf: file)
            return try JSONDecoder().decode(BotCheckpoint.self, from: data)
        } catch {
            throw BotError(
                code: .checkpointUnreadable, message: "the checkpoint \(file.path) cannot be read: \(reason(error))",
                underlying: error)
        }
    }

    /// Why a checkpoint file could not be read, in words: the field and what is wrong with it.
    private static func reason(_ error: any Error) -> String {
        func path(_ codingPath: [any CodingKey], _ key: (any CodingKey)? = nil) -> String {
            let keys = (codingPath + (key.map { [$0] } ?? [])).map(\.stringValue)
            return keys.isEmpty ? "the file" : "\"\(keys.joined(separator: "."))\""
        }
        switch error {
        case DecodingError.keyNotFound(let key, let context): return "\(path(context.codingPath, key)) is missing"
        case DecodingError.typeMismatch(let type, let context): return "\(path(context.codingPath)) is not \(type == String.self ? "a string" : "a \(type)")"
        case DecodingError.valueNotFound(_, let context): return "\(path(context.codingPath)) is null"
        case DecodingError.dataCorrupted(let context):
            return context.codingPath.isEmpty ? "it is not JSON" : "\(path(context.codingPath)): \(context.debugDescription)"
        default: return FileErrorText.describe(error)
        }
    }

    /// Writes it to `file` (creating its folder), replacing the one there at once: a crash
    /// while saving leaves the previous checkpoint, never half of one.
    public func save(to file: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try StateFile.write(try encoder.encode(self), to: file)
    }
}
