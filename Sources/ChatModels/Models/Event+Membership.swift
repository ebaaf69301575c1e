extension Event {
    /// Whether this event adds `userId` to its channel: `member.added` for the channel's
    /// watchers, `notification.added_to_channel` for the user when not watching it.
    public func isAddition(of userId: String) -> Bool {
        (type == .memberAdded || type == .notificationAddedToChannel) && member?.userId == userId
    }

    /// Whether this event removes `userId` from its channel: `member.removed` for the channel's
    /// watchers, `notification.removed_from_channel` for the user when not watching it.
    public func isRemoval(of userId: String) -> Bool {
        (type == .memberRemoved || type == .notificationRemovedFromChannel) && member?.userId == userId
    }
}
