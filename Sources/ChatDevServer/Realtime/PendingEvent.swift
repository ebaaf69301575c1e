import ChatModels
import Foundation
import GRDB

/// An event produced by a write, delivered once the write is committed.
struct PendingEvent: Sendable {
    /// The channel event, for the channel's watchers.
    var cid: ChannelId
    var event: JSONObject
    /// The `notification.*` variant for members that are not watching, and who they are.
    var notification: JSONObject?
    var notify: Set<String> = []
    /// When set, the event goes to these users' connections instead of the watchers.
    var onlyUsers: Set<String>?
}

extension DevServerState {
    /// The common envelope of a channel event.
    static func event(_ type: String, _ cid: ChannelId, at date: Date) -> JSONObject {
        [
            "type": .string(type), "created_at": .string(RFC3339.string(from: date)), "cid": .string(cid.rawValue),
            "channel_type": .string(cid.type.rawValue), "channel_id": .string(cid.id),
        ]
    }

    /// Appends `event` to the channel's log (inside the caller's transaction), so `/sync` returns it.
    static func log(_ db: Database, _ event: JSONObject, cid: ChannelId, at date: Date) throws {
        try EventsTable.append(db, cid, event, at: date)
    }

    /// Delivers committed events to the open connections, and the channels' events to the app's
    /// webhook (the users' own `notification.*` copies are for their connections only).
    func publish(_ events: [PendingEvent]) async {
        let webhook = appSettings.webhook
        for pending in events {
            if let users = pending.onlyUsers {
                await hub.publish(pending.event, toUsers: users)
            } else {
                let text = JSONWriter.string(.object(pending.event))
                if let webhook, let type = pending.event["type"]?.stringValue { webhooks.post(text, type: type, settings: webhook) }
                await hub.publish(text, cid: pending.cid, notification: pending.notification, notify: pending.notify)
            }
        }
    }

    /// Delivers an event about a user, which belongs to no channel (`user.deleted`, ...), to
    /// `users`' connections and to the app's webhook.
    func publishUserEvent(_ event: JSONObject, to users: Set<String>) async {
        if let webhook = appSettings.webhook, let type = event["type"]?.stringValue {
            webhooks.post(JSONWriter.string(.object(event)), type: type, settings: webhook)
        }
        await hub.publish(event, toUsers: users)
    }
}
