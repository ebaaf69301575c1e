import ChatClient
import ChatLocking
import ChatModels
import Foundation

/// A custom command a bot answers: its definition (what users see in the suggestions) and its
/// handler. Registered with ``Bot/customCommand(_:description:arguments:handler:)``.
public struct CustomCommand: Sendable {
    /// The command as the app defines it.
    public let definition: ChatCommand
    package let handler: @Sendable (CustomCommandRequest) async throws -> CustomCommandReply
}

extension Bot {
    /// Answers the app's custom command `/name`. Unlike ``command(_:handler:)``, which sees a
    /// `/name …` message once it is posted, the service hands a custom command's message to the
    /// bot before anything is posted, and the reply says what becomes of it: posted as the bot
    /// rewrote it, shown to its sender alone with buttons (each press comes back here with
    /// ``CustomCommandRequest/formData``), refused, or dropped.
    ///
    /// ```swift
    /// bot.customCommand("ticket", description: "Open a support ticket", arguments: "[description]") { request in
    ///     switch request.formData["action"] {
    ///     case "confirm": return .post(text: "Ticket: \(request.arguments)")
    ///     case "cancel": return .remove
    ///     default: return .ephemeral(text: "Open a ticket about \(request.arguments)?",
    ///                                buttons: [.button("Open", value: "confirm", style: "primary"), .button("Cancel", value: "cancel")])
    ///     }
    /// }
    /// ```
    /// The bot's service creates the command and offers it in the types of the bot's channels
    /// when it starts; the app's `custom_action_handler_url` must reach a `CustomCommandIntake`
    /// (`bots run` serves one beside the webhook and points the embedded server at it).
    public func customCommand(
        _ name: String, description: String, arguments: String = "", handler: @escaping @Sendable (CustomCommandRequest) async throws -> CustomCommandReply
    ) {
        let command = CustomCommand(
            definition: ChatCommand(name: name.lowercased().trimmingCharacters(in: .init(charactersIn: "/")), description: description, arguments: arguments),
            handler: handler)
        routes.withLock { $0.customCommands[command.definition.name] = command }
    }

    /// The custom commands the bot answers, by name.
    public var customCommands: [CustomCommand] {
        routes.withLock { $0.customCommands.values.sorted { $0.definition.name < $1.definition.name } }
    }

    /// The custom command `name`, as the bot answers it now.
    func customCommand(named name: String) -> CustomCommand? { routes.withLock { $0.customCommands[name] } }
}
