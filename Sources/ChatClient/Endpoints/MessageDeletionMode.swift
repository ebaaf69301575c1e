/// How messages are deleted in bulk (a ban's `delete_messages`, a user's deletion).
public enum MessageDeletionMode: String, Sendable, Hashable {
    /// They stay as deleted messages (`type: "deleted"`) that a moderator can undelete.
    case soft
    /// They are removed for good.
    case hard
}
