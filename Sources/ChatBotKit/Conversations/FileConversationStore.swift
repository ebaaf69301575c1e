import ChatLocking
import ChatModels
import Foundation
import Logging

/// Keeps conversations in a JSON file, so they survive a restart: `bots run` keeps each bot's
/// in `.bots/conversations/<bot>.json`.
///
/// The file is read once, when the store is made, and written again, whole and at once, after
/// each change (conversations under way are few). An unreadable file is set aside as
/// `<file>.unreadable` and the store starts empty, saying so in the log.
public final class FileConversationStore: ConversationStore {
    /// The file.
    public let file: URL
    private let table: Locked<ConversationTable>

    /// A store kept in `file`, with the conversations saved there.
    public init(file: URL, logger: Logger = Logger(label: "chatbotkit.conversations")) {
        self.file = file
        var table = ConversationTable()
        if FileManager.default.fileExists(atPath: file.path) {
            do {
                let saved = try RawJSONDecoder().decode(SavedConversations.self, from: Data(contentsOf: file))
                for conversation in saved.conversations { table.entries[conversation.key] = conversation }
            } catch {
                let aside = StateFile.setAside(file)
                logger.warning(
                    "The conversations in \(file.path) cannot be read (\(error)); starting without them",
                    metadata: ["set_aside": "\(aside?.path ?? "could not be moved")"])
            }
        }
        self.table = Locked(table)
    }

    /// The conversation saved under `key`, or nil.
    public func conversation(for key: ConversationKey) -> SavedConversation? {
        table.withLock { $0.entries[key] }
    }

    /// Saves `conversation` and writes the file.
    public func save(_ conversation: SavedConversation) throws {
        try table.withLock { table in
            table.save(conversation)
            try write(table)
        }
    }

    /// Forgets the conversation under `key` and writes the file.
    public func removeConversation(for key: ConversationKey) throws {
        try table.withLock { table in
            guard table.entries.removeValue(forKey: key) != nil else { return }
            try write(table)
        }
    }

    /// The conversations of `bot` whose time for an answer runs out within `expiring`, soonest first.
    public func conversations(of bot: String, expiring: Range<Date>) -> [SavedConversation] {
        table.withLock { $0.conversations(of: bot, expiring: expiring) }
    }

    /// Written under the lock, so two channels' changes reach the file in the order they were made.
    private func write(_ table: ConversationTable) throws {
        let conversations = table.entries.values.sorted { ($0.lastTurnAt, $0.key.description) < ($1.lastTurnAt, $1.key.description) }
        try StateFile.write(RawJSONEncoder().encodeData(SavedConversations(conversations: conversations)), to: file)
    }
}

/// The file's form: `{"version":1,"conversations":[…]}`.
private struct SavedConversations: Codable {
    static let currentVersion = 1
    var version = currentVersion
    var conversations: [SavedConversation]

    init(conversations: [SavedConversation]) { self.conversations = conversations }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        guard version == Self.currentVersion else {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: container, debugDescription: "version \(version) is not one this build reads (\(Self.currentVersion))")
        }
        conversations = try container.decode([SavedConversation].self, forKey: .conversations)
    }
}
