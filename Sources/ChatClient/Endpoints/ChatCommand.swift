import ChatModels
import Foundation

/// A slash command of the app (`POST /commands`): what users see in the command suggestions of
/// a channel whose type offers it. A custom command's messages go to the app's
/// `custom_action_handler_url` before anything is posted.
public struct ChatCommand: Sendable, Hashable {
    /// What users type after the slash (`ticket`): lower-case letters, digits, `_` and `-`.
    public var name: String
    /// Shown beside it in the suggestions.
    public var description: String
    /// The arguments' help text (`[description]`).
    public var arguments: String
    /// The group it is listed in (`fun_set` for `giphy`); empty for none.
    public var set: String

    /// A command.
    public init(name: String, description: String, arguments: String = "", set: String = "") {
        self.name = name
        self.description = description
        self.arguments = arguments
        self.set = set
    }

    init(json: RawJSON) {
        name = json["name"]?.stringValue ?? ""
        description = json["description"]?.stringValue ?? ""
        arguments = json["args"]?.stringValue ?? ""
        set = json["set"]?.stringValue ?? ""
    }

    /// The command's fields as the API takes them.
    var fields: JSONObject {
        ["description": .string(description), "args": .string(arguments), "set": .string(set)]
    }
}
