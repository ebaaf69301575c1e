extension Event {
    /// Who reacted, for reaction events: the reaction's `user_id`, else its user's id, else the
    /// event's user (the service sends all three; a capture or a test may carry fewer).
    package var reactingUserId: String? { reaction.flatMap { $0.userId ?? $0.user?.id } ?? user?.id }
}
