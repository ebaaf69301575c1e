import ChatBotKit
import ChatModels

/// Keeps the messages of trusted users, and their edits, from the moderator's handlers: their
/// files are not judged. Middleware, so one check covers new messages and edits alike. A
/// moderator's reaction to such a message still reaches the bot: trust spares files from being
/// judged, not messages from moderators.
struct TrustedUsers: BotMiddleware {
    /// The user ids whose files are not judged.
    let ids: Set<String>

    func handle(_ message: Message, context: BotContext, next: @Sendable (Message, BotContext) async throws -> Void) async throws {
        if case .reaction = context.trigger { return try await next(message, context) }
        if let author = message.user?.id, ids.contains(author) { return }
        try await next(message, context)
    }
}
