import ChatClient
import ChatLocking
import ChatModels
import Foundation
import Logging

extension Bot {
    /// Handles the turns of conversations of type `State`: each message of the person the bot
    /// is in such a conversation with, in its channel (or thread), with the state saved after
    /// the last one. The handler answers what comes next: `.next(state)`, `.end`, or `.pass`
    /// when the message is no answer and should be routed as usual.
    ///
    /// A turn runs before any other route of the message, inside the middleware. A handler that
    /// throws keeps the conversation where it was, so the person can answer again. A conversation
    /// started or ended in a turn (``BotContext/startConversation(_:with:)``) is left as the
    /// handler made it, whatever the turn answered.
    public func onConversation<State: Conversation>(
        _ type: State.Type, handler: @escaping @Sendable (State, BotContext) async throws -> ConversationTurn<State>
    ) {
        routes.withLock { $0.conversations[State.name] = ConversationRoute(type, handler: handler) }
    }

    /// Where the bot keeps its conversations under way: in memory unless given another store
    /// (`bots run` gives each bot a ``FileConversationStore``).
    public var conversationStore: any ConversationStore {
        get { conversationStoreBox.withLock { $0 } }
        set { conversationStoreBox.withLock { $0 = newValue } }
    }

    /// Gives `message` to the conversation its sender is in, if any; whether that took it
    /// (nothing else is to be done with it).
    func converse(_ message: Message, context: BotContext, routes: Routes) async -> Bool {
        guard let key = context.conversationKey else { return false }
        let store = conversationStore
        let saved: SavedConversation
        do {
            guard let found = try await store.conversation(for: key) else { return false }
            saved = found
        } catch {
            await report(error, context: context, routes: routes)
            return false
        }
        // Delivered again: it was taken as an answer the first time.
        if saved.answered.contains(message.id) { return true }
        let factory = context.client.metricsFactory
        let count = { (event: String) in BotMetrics.conversation(event, name: saved.name, bot: self.name, factory: factory) }
        let time = context.turnTime
        guard saved.startedBy != message.id, time >= saved.lastTurnAt else { return false }
        guard let route = routes.conversations[saved.name], time <= saved.expiresAt else {
            let expired = time > saved.expiresAt
            context.logger.notice(
                "Conversation \(saved.name) (\(key)) is over: \(expired ? "no answer came in time" : "the bot has no onConversation handler for it any more")")
            count(expired ? "expired" : "unknown")
            await forget(key, in: store, context: context, routes: routes)
            if expired, let text = routes.conversations[saved.name]?.expiredText {
                await run(context, routes) { try await context.reply(text: text) }
            }
            return false
        }
        if let cancel = route.cancelCommand, CommandInvocation(text: message.text)?.name == cancel {
            count("cancelled")
            await forget(key, in: store, context: context, routes: routes)
            if let text = route.cancelledText { await run(context, routes) { try await context.reply(text: text) } }
            return true
        }
        let outcome: ConversationRoute.Outcome
        do {
            outcome = try await route.turn(saved.state, context)
        } catch let unreadable as ConversationStateUnreadable {
            context.logger.warning(
                "Conversation \(saved.name) (\(key)) is forgotten: its saved state no longer fits the type (\(unreadable.reason))")
            count("unreadable")
            await forget(key, in: store, context: context, routes: routes)
            return false
        } catch {
            await report(error, context: context, routes: routes)
            return true
        }
        if case .pass = outcome { return false }
        guard !context.replyCounter.conversationChanged else { return true }
        var next = saved
        switch outcome {
        case .next(let state):
            next.state = state
            next.answered = Array((saved.answered + [message.id]).suffix(SavedConversation.answeredKept))
            next.lastTurnAt = time
            next.expiresAt = time.addingTimeInterval(route.timeout.timeInterval)
            count("answered")
            await run(context, routes) { try await store.save(next) }
        case .end, .pass:
            count("ended")
            await forget(key, in: store, context: context, routes: routes)
        }
        return true
    }

    private func forget(_ key: ConversationKey, in store: any ConversationStore, context: BotContext, routes: Routes) async {
        await run(context, routes) { try await store.removeConversation(for: key) }
    }
}
