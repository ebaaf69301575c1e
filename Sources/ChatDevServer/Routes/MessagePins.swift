import ChatModels
import Foundation

/// A message's pin as the service keeps it: `pinned` and `pin_expires` are the sender's to set;
/// `pinned_at` and `pinned_by` are the server's, written when a message becomes pinned.
///
/// Stored in the message's data as `pinned` (bool), `pinned_at` (RFC 3339), `pinned_by` (user id)
/// and `pin_expires` (RFC 3339); a pin whose expiry has passed reads as not pinned.
enum MessagePins {
    /// The data keys a client may not write.
    static let serverKeys: Set<String> = ["pinned_at", "pinned_by"]
    /// The data keys a client writes to pin and unpin; any member may set them on anyone's
    /// message (the `pin-message` capability).
    static let senderKeys: Set<String> = ["pinned", "pin_expires"]

    /// `edited` with its pin worked out: `sent` is what the request said (the new message, the
    /// full update's message or the partial update's `set`), `before` the stored data (nil for a
    /// new message), `actor` who asks (nil when a server token names nobody).
    ///
    /// A message that becomes pinned records when and by whom; one still pinned keeps both. A
    /// pin that is not a bool, an expiry that is not a timestamp, or one already past, is refused.
    static func applying(
        to edited: JSONObject, sent: JSONObject, before: JSONObject?, actor: String?, now: Date, operation: String
    ) throws -> JSONObject {
        if let pinned = sent["pinned"], !pinned.isNull, pinned.boolValue == nil {
            throw APIError.input(operation, "pinned must be true or false, found \(pinned.kindDescription)")
        }
        if let expiry = sent["pin_expires"], !expiry.isNull {
            guard let text = expiry.stringValue, let date = RFC3339.date(from: text) else {
                throw APIError.input(
                    operation, "pin_expires must be an RFC 3339 timestamp such as 2077-01-01T00:00:00Z, or null for a pin that does not expire")
            }
            guard date > now else {
                throw APIError.input(operation, "pin_expires \(text) has passed; a pin must expire in the future")
            }
        }
        var data = edited
        for key in serverKeys { data[key] = nil }
        data["pin_expires"] = nil
        guard data["pinned"]?.boolValue == true else { return data }
        let expiry = (edited["pin_expires"]?.stringValue).flatMap(RFC3339.date(from:))
        if let expiry, expiry <= now {
            // An expired pin carried over by an edit of something else: the message is no longer pinned.
            data["pinned"] = false
            return data
        }
        if let before, let pin = pin(of: before, at: now) {
            data["pinned_at"] = .string(RFC3339.string(from: pin.at))
            data["pinned_by"] = .string(pin.by)
        } else {
            guard let actor else {
                throw APIError.input(operation, "pinning a message with a server token needs user or user_id: the user who pins it")
            }
            data["pinned_at"] = .string(RFC3339.string(from: now))
            data["pinned_by"] = .string(actor)
        }
        if let expiry { data["pin_expires"] = .string(RFC3339.string(from: expiry)) }
        return data
    }

    /// A stored message's pin in force at `now`: when, by whom, until when; nil if it is not pinned
    /// or its pin has expired.
    static func pin(of data: JSONObject, at now: Date) -> (at: Date, by: String, expires: Date?)? {
        guard data["pinned"]?.boolValue == true, let at = (data["pinned_at"]?.stringValue).flatMap(RFC3339.date(from:)),
            let by = data["pinned_by"]?.stringValue
        else { return nil }
        let expires = (data["pin_expires"]?.stringValue).flatMap(RFC3339.date(from:))
        if let expires, expires <= now { return nil }
        return (at, by, expires)
    }
}
