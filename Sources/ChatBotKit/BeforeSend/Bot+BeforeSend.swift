import ChatLocking
import ChatModels

extension Bot {
    /// Judges each new message of the app before anyone sees it, through the service's Before
    /// Message Send webhook: the handler lets it through, replaces it, or refuses it with the
    /// text its sender sees instead. Nothing is stored, announced or pushed until it answers.
    ///
    /// ```swift
    /// bot.beforeSend { message, context in
    ///     guard message.text.contains("password") else { return .pass }
    ///     return .reject("Please don't post passwords here.")
    /// }
    /// ```
    /// The handler has until `context.deadline` (the app's `before_message_send_hook_attempt_timeout_ms`,
    /// 1.5 s by default, less a margin for the way back): a later one is cancelled and the
    /// message let through, as the service does when its hook is late. It sees the messages of
    /// every channel of the app, never the bot's own. The app's `before_message_send_hook_url`
    /// must reach a ChatBotKitWebhooks `BeforeSendIntake` (`bots run` serves one beside the
    /// webhook and points the embedded server at it). Several handlers run in the order added,
    /// each on the message as the one before left it; the first refusal ends the run.
    public func beforeSend(_ handler: @escaping BeforeSendHandler) {
        routes.withLock { $0.beforeSend.append(handler) }
    }

    /// The before-send handlers, in the order added.
    package var beforeSendHandlers: [BeforeSendHandler] { routes.withLock { $0.beforeSend } }

    /// Whether the bot judges messages before they are sent.
    public var judgesBeforeSending: Bool { routes.withLock { !$0.beforeSend.isEmpty } }
}
