import ChatClient
import ChatModels
import Foundation

extension EventAcceptance {
    /// Someone else's vote on a poll, cast, changed or taken back, for a bot with poll vote
    /// handlers; the message is the one carrying the poll. The bot's own votes are not handled.
    func pollVote(_ event: Event) -> (Delivery, ChannelId)? {
        guard bot.handlesPollVotes, let vote = event.pollVote, let poll = event.poll, let message = event.message,
            let cid = event.cid ?? message.cid, vote.userId != bot.user.id
        else { return nil }
        let change: PollVoteChange =
            switch event.type {
            case .pollVoteChanged: .changed
            case .pollVoteRemoved: .removed
            default: .cast
            }
        return (Delivery(.pollVote(vote, poll: poll, change: change), message), cid)
    }

    /// A poll closed for voting, for a bot with handlers of closed polls.
    func pollClosing(_ event: Event) -> (Delivery, ChannelId)? {
        guard bot.handlesPollClosings, let poll = event.poll, let message = event.message, let cid = event.cid ?? message.cid else { return nil }
        return (Delivery(.pollClosed(poll), message), cid)
    }
}
