/// What happened to a shared location (``BotContext/Trigger/location(_:change:)``).
public enum LocationChange: String, Sendable, Hashable {
    /// A message sharing it was sent: a static location, or a live one starting.
    case shared
    /// A live location moved (`message.updated` with its new position).
    case moved
    /// Its sharer stopped a live location before its end (its `endAt` moved to when they did).
    case stopped
}
