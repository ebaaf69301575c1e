import Foundation

extension Message {
    /// When the message was pinned; nil when it is not pinned.
    public var pinnedAt: Date? {
        guard isPinned == true else { return nil }
        return serverFields["pinned_at"]?.stringValue.flatMap(RFC3339.date(from:))
    }

    /// Who pinned the message; nil when it is not pinned.
    public var pinnedBy: User? {
        guard isPinned == true, let json = serverFields["pinned_by"], !json.isNull else { return nil }
        return try? User(json: json)
    }

    /// When the pin ends; nil for a pin that does not expire, or a message that is not pinned.
    public var pinExpires: Date? {
        guard isPinned == true else { return nil }
        return serverFields["pin_expires"]?.stringValue.flatMap(RFC3339.date(from:))
    }
}
