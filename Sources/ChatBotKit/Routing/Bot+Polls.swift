import ChatLocking
import ChatClient
import ChatModels

extension Bot {
    /// Handles votes on polls in the bot's channels, cast, changed or taken back by others
    /// (the bot's own are not handled): `context.message` is the message carrying the poll,
    /// `context.trigger` is `.pollVote(vote, poll:, change:)` with the poll as it stands after
    /// the vote. Once each, in order with the channel's messages, middleware around it.
    ///
    /// ```swift
    /// bot.onPollVote { vote, context in
    ///     guard case .pollVote(_, let poll, _) = context.trigger, poll.voteCount == 10 else { return }
    ///     try await context.client.closePoll(poll.id, as: context.bot.user.id)
    /// }
    /// ```
    public func onPollVote(_ handler: @escaping @Sendable (PollVote, BotContext) async throws -> Void) {
        routes.withLock { $0.pollVotes.append(handler) }
    }

    /// Handles polls closed for voting in the bot's channels (`poll.closed`): `context.message`
    /// is the message carrying the poll; the poll has its final counts
    /// (`Poll.leadingOptions`).
    public func onPollClosed(_ handler: @escaping @Sendable (Poll, BotContext) async throws -> Void) {
        routes.withLock { $0.pollClosings.append(handler) }
    }

    /// Runs the middleware chain and every poll vote handler; a handler that throws is logged
    /// and reported to `onError`, and the others still run.
    public func handle(_ vote: PollVote, context: BotContext) async {
        await runHandlers(\.pollVotes, of: vote, context: context)
    }

    /// Runs the middleware chain and every handler of a closed poll, as votes' are run.
    public func handle(closed poll: Poll, context: BotContext) async {
        await runHandlers(\.pollClosings, of: poll, context: context)
    }
}
