import ChatModels
import Foundation

/// A slash command of the app: a built-in one (`giphy`, `ban`, …) or a custom one created with
/// `POST /commands`, whose messages go to the app's `custom_action_handler_url`.
struct CommandDefinition: Sendable, Equatable {
    var name: String
    var description: String
    var args: String
    var set: String
    var createdAt: Date
    var updatedAt: Date

    /// The commands every app has; their names cannot be taken by custom commands.
    static let builtIns: [CommandDefinition] = {
        let start = Date(timeIntervalSince1970: 1_704_067_200)
        return [
            ("giphy", "Post a random gif to the channel", "[text]", "fun_set"),
            ("ban", "Ban a user", "[@username] [text]", "moderation_set"),
            ("unban", "Unban a user", "[@username]", "moderation_set"),
            ("mute", "Mute a user", "[@username]", "moderation_set"),
            ("unmute", "Unmute a user", "[@username]", "moderation_set"),
        ].map { CommandDefinition(name: $0.0, description: $0.1, args: $0.2, set: $0.3, createdAt: start, updatedAt: start) }
    }()

    /// Whether `name` is a built-in command's.
    static func isBuiltIn(_ name: String) -> Bool { builtIns.contains { $0.name == name } }

    /// As the API shows a command.
    var json: JSONObject {
        [
            "name": .string(name), "description": .string(description), "args": .string(args), "set": .string(set),
            "created_at": .string(RFC3339.string(from: createdAt)), "updated_at": .string(RFC3339.string(from: updatedAt)),
        ]
    }

    /// Reads one stored with ``json``.
    init?(json: RawJSON) {
        guard let name = json["name"]?.stringValue else { return nil }
        self.name = name
        description = json["description"]?.stringValue ?? ""
        args = json["args"]?.stringValue ?? ""
        set = json["set"]?.stringValue ?? ""
        createdAt = json["created_at"]?.stringValue.flatMap { RFC3339.date(from: $0) } ?? Date(timeIntervalSince1970: 0)
        updatedAt = json["updated_at"]?.stringValue.flatMap { RFC3339.date(from: $0) } ?? createdAt
    }

    init(name: String, description: String, args: String, set: String, createdAt: Date, updatedAt: Date) {
        self.name = name
        self.description = description
        self.args = args
        self.set = set
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Refuses a name the service refuses: 1 to 255 characters of lower-case letters, digits,
    /// `_` and `-` (a user types it after a slash, and the `{type}` of the handler URL takes it).
    static func checkName(_ name: String, operation: String) throws(APIError) {
        let allowed = name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        guard !name.isEmpty, name.utf8.count <= 255, allowed else {
            throw .input(operation, "command name \"\(name)\" must be 1 to 255 lower-case letters, digits, _ or -, as typed after the slash")
        }
    }
}
