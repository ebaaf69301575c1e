import ChatModels

/// What follows how far a bot has handled its channels (the checkpointer, the lease keeper),
/// told by the ``DeliveryPipeline`` as it takes events in and its handlers finish, without the
/// pipeline knowing what they keep.
///
/// Called on the hot path, under no lock of the pipeline's: each call should take a lock of its
/// own at most once.
protocol DeliveryObserver: Sendable {
    /// An event of one of the bot's channels was taken in; `delivery` is what it became, nil when
    /// it is nothing to handle or was handled before. Told before the delivery is queued, so
    /// that its ``finished(_:in:)`` always comes after.
    func took(_ event: Event, as delivery: Delivery?)
    /// An event was left to another node (a scaled-out bot's channel it does not hold).
    func passed(_ event: Event)
    /// A delivery of the bot's own (a scheduled run, a conversation's timeout, a reminder, a
    /// user's deletion fanned out to its channels), which no event of `cid` brought, was queued.
    func queuedOwn(_ delivery: Delivery, in cid: ChannelId)
    /// A delivery's handlers ran to the end (not cut off by the drain deadline).
    func finished(_ delivery: Delivery, in cid: ChannelId)
}
