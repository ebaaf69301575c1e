import ChatBotKit
import ChatModels
import Foundation

/// What an assistant remembers of a chat: the thread's messages, or the channel's recent ones,
/// up to the message it answers, bounded by a number of messages and of characters (the
/// oldest go first). The bot's own messages are the assistant's turns; everyone else's are
/// user turns, prefixed with their name; attachments are summarised as text.
public struct ConversationMemory: Sendable {
    /// The most messages read.
    public var maximumMessages: Int
    /// The most characters kept, over all turns.
    public var maximumCharacters: Int

    /// A memory of at most `maximumMessages` messages and `maximumCharacters` characters.
    public init(maximumMessages: Int = 40, maximumCharacters: Int = 12_000) {
        self.maximumMessages = max(1, maximumMessages)
        self.maximumCharacters = max(200, maximumCharacters)
    }

    /// The turns for the message `context` handles.
    public func messages(for context: BotContext) async throws -> [ModelMessage] {
        let client = context.client
        let history: [Message]
        if let parentId = context.message.parentId {
            let parent = try? await client.getMessage(parentId)
            history = (parent.map { [$0] } ?? []) + (try await client.replies(to: parentId, limit: maximumMessages))
        } else {
            history = try await client.queryChannel(context.channel.cid, messageLimit: maximumMessages).messages
        }
        return turns(history, answering: context.message, botUserId: context.bot.user.id)
    }

    /// The turns from `history` up to `current` (which ends them, whether or not `history` has it).
    public func turns(_ history: [Message], answering current: Message, botUserId: String) -> [ModelMessage] {
        let cutoff = current.createdAt ?? .distantFuture
        let earlier = history.filter { message in
            message.id != current.id && (message.createdAt ?? .distantPast) <= cutoff && message.type != .deleted && message.type != .ephemeral
                && message.type != .error && message.extraData["generating"]?.boolValue != true
        }
        .sorted { ($0.createdAt ?? .distantPast) < ($1.createdAt ?? .distantPast) }
        var turns = (earlier.suffix(maximumMessages - 1) + [current]).map { turn(for: $0, botUserId: botUserId) }
        var total = turns.reduce(0) { $0 + $1.content.count }
        while total > maximumCharacters, turns.count > 1 {
            total -= turns.removeFirst().content.count
        }
        if total > maximumCharacters, var last = turns.popLast() {
            last.content = String(last.content.suffix(maximumCharacters))
            turns.append(last)
        }
        return turns
    }

    func turn(for message: Message, botUserId: String) -> ModelMessage {
        let attachments = message.attachments.map(Self.summary)
        let body = ([message.text] + attachments).filter { !$0.isEmpty }.joined(separator: "\n")
        if message.user?.id == botUserId { return .assistant(body) }
        let name = message.user?.name ?? message.user?.id ?? "someone"
        return .user("\(name): \(body)")
    }

    /// An attachment as text: `[workout attachment: workout-type=run, workout-distance-meters=5000]`.
    public static func summary(_ attachment: AnyChatMessageAttachment) -> String {
        let json = attachment.rawJSON
        let type = json["type"]?.stringValue ?? "file"
        let skipped: Set<String> = ["type", "asset_url", "image_url", "thumb_url", "og_scrape_url", "author_icon", "actions"]
        var fields: [String] = []
        for (key, value) in json where !skipped.contains(key) && fields.count < 8 {
            let text: String
            switch value {
            case .string(let string): text = string.count > 80 ? String(string.prefix(80)) + "…" : string
            case .number, .bool: text = JSONWriter.string(value)
            default: continue
            }
            fields.append("\(key)=\(text)")
        }
        return "[\(type) attachment" + (fields.isEmpty ? "]" : ": " + fields.joined(separator: ", ") + "]")
    }
}
