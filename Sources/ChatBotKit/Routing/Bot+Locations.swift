import ChatClient
import ChatLocking
import ChatModels

extension Bot {
    /// Handles locations shared in the bot's channels by others: a message sharing one
    /// (`.shared`: static, or a live one starting; after the message's own handlers, which
    /// see its text and attachments as any message's), each move of a live one (`.moved`),
    /// and a live one stopped by its sharer (`.stopped`); `context.trigger` is
    /// `.location(location, change:)` and `context.message` the message sharing it. Once each,
    /// in order with the channel's messages, middleware around it. Moves are not edits: they
    /// reach no edit handler. The service says nothing when a live location runs out: set a
    /// reminder at `SharedLocation.endAt` (`context.remind(at:)`) to hear of it.
    ///
    /// ```swift
    /// bot.onLocation { location, context in
    ///     guard case .location(_, .moved) = context.trigger else { return }
    ///     context.logger.info("now at \(location.latitude), \(location.longitude)")
    /// }
    /// ```
    public func onLocation(_ handler: @escaping @Sendable (SharedLocation, BotContext) async throws -> Void) {
        routes.withLock { $0.locations.append(handler) }
    }

    /// Runs the middleware chain and every location handler, as poll votes' are run.
    public func handle(_ location: SharedLocation, context: BotContext) async {
        await runHandlers(\.locations, of: location, context: context)
    }

    /// Whether it has location handlers: a bot without takes no moves at all.
    var handlesLocations: Bool { routes.withLock { !$0.locations.isEmpty } }
}
