/// What happened to a vote on a poll (``BotContext/Trigger/pollVote(_:poll:change:)``).
public enum PollVoteChange: String, Sendable, Hashable {
    /// A new vote or answer (`poll.vote_casted`).
    case cast
    /// A single-choice vote, or an answer, replaced by the voter's new one (`poll.vote_changed`).
    case changed
    /// Taken back (`poll.vote_removed`).
    case removed
}
