import ChatClient
import ChatLocking
import ChatModels
import Logging
import Synchronization

extension Bot {
    /// Runs the middleware chain and every matching route for one message. A handler that
    /// throws is logged and reported to `onError`; the other handlers still run.
    public func handle(_ message: Message, context: BotContext) async {
        let routes = self.routes.withLock { $0 }
        guard !routes.middleware.isEmpty else { return await route(message, context: context, routes: routes) }
        await throughMiddleware(message, context, routes) { message, context in
            await self.route(message, context: context, routes: routes)
        }
    }

    /// Runs the middleware chain and every deletion handler for one deleted message. A handler
    /// that throws is logged and reported to `onError`; the others still run.
    public func handle(_ deletion: MessageDeletion, context: BotContext) async {
        let routes = self.routes.withLock { $0 }
        guard !routes.deletions.isEmpty else { return }
        await throughMiddleware(deletion.message, context, routes) { _, context in
            for handler in routes.deletions { await self.run(context, routes) { try await handler(deletion, context) } }
        }
    }

    /// Runs the middleware chain and every undeletion handler for one restored message
    /// (`context.message`). A handler that throws is logged and reported to `onError`; the
    /// others still run.
    public func handleUndeletion(context: BotContext) async {
        let routes = self.routes.withLock { $0 }
        guard !routes.undeletions.isEmpty else { return }
        await throughMiddleware(context.message, context, routes) { _, context in
            for handler in routes.undeletions { await self.run(context, routes) { try await handler(context) } }
        }
    }

    /// Runs the middleware chain and every handler of a reminder that came due on
    /// `context.message`. A handler that throws is logged and reported to `onError`; the others
    /// still run.
    public func handle(_ reminder: MessageReminder, context: BotContext) async {
        await runHandlers(\.reminders, of: reminder, context: context)
    }

    /// Runs the middleware chain on `context.message` around every handler at `handlers` of
    /// `value` (a reminder, a poll vote, a closed poll). A handler that throws is logged and
    /// reported to `onError`; the others still run.
    func runHandlers<Value: Sendable>(
        _ handlers: KeyPath<Routes, [@Sendable (Value, BotContext) async throws -> Void]>, of value: Value, context: BotContext
    ) async {
        let routes = self.routes.withLock { $0 }
        let chosen = routes[keyPath: handlers]
        guard !chosen.isEmpty else { return }
        await throughMiddleware(context.message, context, routes) { _, context in
            for handler in chosen { await self.run(context, routes) { try await handler(value, context) } }
        }
    }

    /// Runs every truncation handler for a channel's truncation or deletion. A handler that
    /// throws is logged and reported to `onError` (without a context); the others still run.
    public func handle(_ truncation: ChannelTruncation, channel: ChatChannel, logger: Logger) async {
        let routes = self.routes.withLock { $0 }
        await run(routes.truncations, with: truncation, what: "a channel truncation handler", channel, logger, routes)
    }

    /// Runs every handler of a deletion of one user's messages in a channel, as
    /// a truncation's handlers are run.
    public func handle(_ deletion: UserMessagesDeletion, channel: ChatChannel, logger: Logger) async {
        let routes = self.routes.withLock { $0 }
        await run(routes.userMessagesDeletions, with: deletion, what: "a user's messages deletion handler", channel, logger, routes)
    }

    /// Runs `handlers` on `value`; one that throws is logged and reported to `onError` (without
    /// a context), and the others still run.
    private func run<Value>(
        _ handlers: [@Sendable (Value, ChatChannel) async throws -> Void], with value: Value, what: String, _ channel: ChatChannel,
        _ logger: Logger, _ routes: Routes
    ) async {
        for handler in handlers {
            do {
                try await handler(value, channel)
            } catch {
                let botError = BotError(code: .handlerFailed, message: "\(what) of bot \(name) failed: \(error)", underlying: error)
                await report(botError, in: channel, logger: logger, context: nil, routes: routes)
            }
        }
    }

    /// Runs every handler of `event`'s type for a channel event. A handler that throws is
    /// logged and reported to `onError` (without a context); the others still run.
    func handle(_ event: Event, channel: ChatChannel, logger: Logger, postKey: String) async {
        let routes = self.routes.withLock { $0 }
        await run(routes.events[event.type] ?? [], for: event, what: "a \(event.type.rawValue) event handler", channel, logger, postKey, routes)
    }

    /// Runs every handler of the bot's addition to `channel`, as ``handle(_:channel:logger:postKey:)``.
    func handleAddition(_ event: Event, channel: ChatChannel, logger: Logger, postKey: String) async {
        let routes = self.routes.withLock { $0 }
        await run(routes.additions, for: event, what: "an added-to-channel handler", channel, logger, postKey, routes)
    }

    private func run(
        _ handlers: [@Sendable (ChannelEventContext) async throws -> Void], for event: Event, what: String, _ channel: ChatChannel,
        _ logger: Logger, _ postKey: String, _ routes: Routes
    ) async {
        let context = ChannelEventContext(event: event, channel: channel, bot: self, logger: logger, postKey: postKey)
        for handler in handlers {
            do {
                try await handler(context)
            } catch {
                let botError = BotError(code: .handlerFailed, message: "\(what) of bot \(name) failed in \(channel.cid): \(error)", underlying: error)
                await report(botError, in: channel, logger: context.logger, context: nil, routes: routes)
            }
        }
    }

    /// Runs the middleware chain and every edit handler for one edited message
    /// (`context.message`). A handler that throws is logged and reported to `onError`; the
    /// others still run.
    public func handleUpdate(context: BotContext) async {
        let routes = self.routes.withLock { $0 }
        guard !routes.updates.isEmpty else { return }
        await throughMiddleware(context.message, context, routes) { _, context in
            for handler in routes.updates { await self.run(context, routes) { try await handler(context) } }
        }
    }

    /// Runs the middleware chain and the handlers of `reaction`'s type for a reaction added to
    /// `context.message` or (`isRemoved`) taken off it. A handler that throws is logged and
    /// reported to `onError`; the others still run.
    public func handle(_ reaction: Reaction, isRemoved: Bool, context: BotContext) async {
        let routes = self.routes.withLock { $0 }
        let handlers = routes.reactions.filter { $0.isRemoved == isRemoved && ($0.type == nil || $0.type == reaction.type) }
        guard !handlers.isEmpty else { return }
        await throughMiddleware(context.message, context, routes) { _, context in
            for route in handlers { await self.run(context, routes) { try await route.handler(reaction, context) } }
        }
    }

    /// Runs `handlers` inside the middleware, the first added outermost; a middleware that
    /// throws is reported to `onError`. (A new message is routed directly when there is no
    /// middleware: the chain's closures showed as a few percent in the dispatch benchmark.)
    private func throughMiddleware(
        _ message: Message, _ context: BotContext, _ routes: Routes, _ handlers: @escaping @Sendable (Message, BotContext) async throws -> Void
    ) async {
        let chain = routes.middleware.reversed().reduce(handlers) { next, middleware in
            { @Sendable (message: Message, context: BotContext) async throws in
                try await middleware.handle(message, context: context, next: next)
            }
        }
        do {
            try await chain(message, context)
        } catch {
            await report(error, context: context, routes: routes)
        }
    }

    private func route(_ message: Message, context: BotContext, routes: Routes) async {
        if !routes.conversations.isEmpty, await converse(message, context: context, routes: routes) { return }
        for attachment in message.attachments {
            let matching = routes.attachments.filter { $0.type == attachment.type }
            let isRegistered = routes.registry.payloadType(for: attachment.type) != nil
            if !isRegistered, matching.isEmpty {
                for handler in routes.unknownAttachments { await run(context, routes) { try await handler(attachment, context) } }
                continue
            }
            // Decoding costs more than routing: only decode for typed routes, or to report a failure.
            let decodes = isRegistered && (matching.contains(where: \.isTyped) || !routes.decodingFailures.isEmpty)
            let payload: (any AttachmentPayload)?
            switch decodes ? routes.registry.decode(attachment) : .unknown(attachment) {
            case .decoded(let decoded, _):
                payload = decoded
            case .unknown:
                payload = nil
            case .failed(let failure):
                context.logger.notice("Attachment could not be decoded: \(failure.message)")
                BotMetrics.decodingFailed(attachment.type, bot: name, factory: context.client.metricsFactory)
                DeliverySpan.decodingFailed(failure)
                for handler in routes.decodingFailures { await run(context, routes) { try await handler(failure, context) } }
                // Type-erased routes still see the raw attachment.
                for route in matching where !route.isTyped { await run(context, routes) { try await route.handler(attachment, nil, context) } }
                continue
            }
            for route in matching { await run(context, routes) { try await route.handler(attachment, payload, context) } }
        }
        if let command = CommandInvocation(text: message.text) {
            for handler in routes.commands[command.name] ?? [] { await run(context, routes) { try await handler(command, context) } }
        }
        for (predicate, handler) in routes.predicates where predicate(message) {
            await run(context, routes) { try await handler(context) }
        }
        for handler in routes.messages { await run(context, routes) { try await handler(context) } }
    }

    func run(_ context: BotContext, _ routes: Routes, _ body: () async throws -> Void) async {
        do {
            try await body()
        } catch {
            await report(error, context: context, routes: routes)
        }
    }

    func report(_ error: any Error, context: BotContext, routes: Routes) async {
        let botError = BotError(
            code: .handlerFailed, message: "a handler of bot \(name) failed: \(error)", messageId: context.message.id, underlying: error)
        await report(botError, in: context.channel, logger: context.logger, context: context, routes: routes)
    }

    /// Logs a failure in `channel`, counts it, marks the delivery's span, and hands it to the
    /// `onError` handlers, with `context` when it concerns a message. Inside a delivery's run
    /// (``DeliveryAttempt/current``) the run keeps it too; a transient failure is told only once
    /// the run is over, and only if it is final: else the delivery runs again.
    func report(_ botError: BotError, in channel: ChatChannel, logger: Logger, context: BotContext?, routes: Routes) async {
        guard let attempt = DeliveryAttempt.current else { return await tell(botError, in: channel, logger: logger, context: context, routes: routes) }
        let isTransient = DeliveryAttempt.isTransient(botError)
        attempt.record(DeliveryAttempt.Failure(error: botError, channel: channel, logger: logger, context: context, routes: routes, isTold: !isTransient))
        if !isTransient { await tell(botError.after(attempts: attempt.number), in: channel, logger: logger, context: context, routes: routes) }
    }

    /// Logs, counts and marks a failure, and hands it to the `onError` handlers.
    func tell(_ botError: BotError, in channel: ChatChannel, logger: Logger, context: BotContext?, routes: Routes) async {
        logger.error("\(botError.message)", metadata: ["cid": "\(channel.cid)"])
        BotMetrics.handlerFailed(bot: name, factory: channel.client.metricsFactory)
        DeliverySpan.handlerFailed(botError)
        for handler in routes.errors { await handler(botError, context) }
    }
}
