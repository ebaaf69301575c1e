import ChatModels

/// Code that runs around a bot's handling of every message, and of every edit, deletion and
/// undeletion it has handlers for: logging, metrics, permission checks, rate limits. Call
/// `next` to continue; not calling it stops the message there. `context.trigger` says whether
/// the message is new, edited, deleted or undeleted.
///
/// ```swift
/// struct OnlyMembers: BotMiddleware {
///     func handle(_ message: Message, context: BotContext, next: @Sendable (Message, BotContext) async throws -> Void) async throws {
///         guard message.user?.role != "guest" else { return }
///         try await next(message, context)
///     }
/// }
/// ```
public protocol BotMiddleware: Sendable {
    /// Handles one message; `next` runs the rest of the chain and the handlers.
    func handle(_ message: Message, context: BotContext, next: @Sendable (Message, BotContext) async throws -> Void) async throws
}
