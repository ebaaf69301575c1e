import ChatClient
import ChatModels
import Foundation

/// A custom command to answer: `/ticket my laptop broke` as a user sent it, before anything is
/// posted, or a button pressed on the ephemeral message its answer showed them
/// (``formData`` says which).
public struct CustomCommandRequest: Sendable {
    /// The command's name (`ticket`).
    public let command: String
    /// What follows the command, as typed (`my laptop broke`).
    public let arguments: String
    /// The message: as sent, or, for a button, the ephemeral message it is on.
    public let message: Message
    /// Who sent it (or pressed the button).
    public let user: User?
    /// The button's name and value (`["action": "confirm"]`); empty when the command was just sent.
    public let formData: [String: String]
    /// A client acting as the bot, for anything the answer needs first (a lookup, an upload).
    public let client: ChatClient

    /// A request as the intake read it.
    package init(command: String, arguments: String, message: Message, user: User?, formData: [String: String], client: ChatClient) {
        self.command = command
        self.arguments = arguments
        self.message = message
        self.user = user
        self.formData = formData
        self.client = client
    }

    /// Whether a button was pressed (rather than the command sent).
    public var isAction: Bool { !formData.isEmpty }

    /// The words of ``arguments``.
    public var argumentWords: [String] { arguments.split(whereSeparator: \.isWhitespace).map(String.init) }
}
