import Foundation

extension User {
    /// When the user was deactivated (`deactivated_at`), nil while it is active.
    public var deactivatedAt: Date? { extraData["deactivated_at"]?.stringValue.flatMap(RFC3339.date(from:)) }

    /// When the user was deleted (`deleted_at`), nil unless it is.
    public var deletedAt: Date? { extraData["deleted_at"]?.stringValue.flatMap(RFC3339.date(from:)) }
}
