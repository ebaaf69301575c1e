import ChatClient

/// Where custom command requests are answered (ChatBotKitWebhooks' `CustomCommandIntake`, which
/// the app's `custom_action_handler_url` reaches). A ``BotService`` registers its bot's commands
/// at start and again when it is reconfigured, and unregisters them when it stops.
///
/// ChatBotKit holds only this seam, so that a bot without custom commands builds without an
/// HTTP server.
public protocol CustomCommandRegistry: Sendable {
    /// Answers `commands` for the bot named `bot` from now on, replacing what it registered
    /// before; their replies are sent through `client`. Throws when another bot answers one of them.
    func register(_ commands: [CustomCommand], bot: String, client: ChatClient) throws(BotError)
    /// Stops answering the commands of the bot named `bot`.
    func unregister(bot: String)
}
