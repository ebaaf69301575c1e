import ChatModels
import Foundation
import GRDB
import Hummingbird

/// Reminders: a member asks to be reminded of a message at a time (`remind_at`), or saves it
/// for later without one. When one comes due, the member's connections and the app's webhook
/// get `notification.reminder_due` (see ``ReminderAlarm``).
extension MessageRoutes {
    /// `POST /messages/{id}/reminders` with `remind_at` (RFC 3339; absent or null saves the
    /// message for later) and `user_id` with a server token: the member's reminder, at most one
    /// per message and 250 per user; `reminder.created` to the member.
    func createReminder(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "CreateReminder"
        let (userId, messageId, remindAt, now, renderer) = try await reminderChange(request, context, operation)
        let (stored, reminder) = try await state.store.write { db -> (StoredReminder, JSONObject) in
            let message = try DevServerState.requireMessage(db, messageId, operation: operation)
            guard message.deletedAt == nil else { throw APIError.input(operation, "message \(messageId) is deleted; it cannot have a reminder") }
            _ = try DevServerState.requireMember(db, message.cid, userId, operation: operation)
            guard try RemindersTable.count(of: userId, db) < RemindersTable.limitPerUser else {
                throw APIError.input(
                    operation, "user \(userId) already has \(RemindersTable.limitPerUser) reminders, the most a user may have; delete one first")
            }
            let stored = StoredReminder(messageId: messageId, userId: userId, cid: message.cid, remindAt: remindAt, createdAt: now, updatedAt: now)
            guard try RemindersTable.insert(db, stored) else {
                throw APIError.input(
                    operation, "user \(userId) already has a reminder for message \(messageId); change it with PATCH /messages/\(messageId)/reminders")
            }
            return (stored, try renderer.reminder(stored, db))
        }
        await announce("reminder.created", reminder, stored, at: now)
        return JSONReply(["reminder": .object(reminder)], status: .created)
    }

    /// `PATCH /messages/{id}/reminders` with `remind_at` (absent or null: saved for later) and
    /// `user_id`: moves the member's reminder (404 when there is none), due again even if it
    /// was notified; `reminder.updated` to the member.
    func updateReminder(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "UpdateReminder"
        let (userId, messageId, remindAt, now, renderer) = try await reminderChange(request, context, operation)
        let (stored, reminder) = try await state.store.write { db -> (StoredReminder, JSONObject) in
            guard try RemindersTable.reschedule(db, messageId: messageId, userId: userId, to: remindAt, at: now),
                let stored = try RemindersTable.fetch(db, messageId: messageId, userId: userId)
            else { throw Self.noReminder(userId, messageId, operation) }
            return (stored, try renderer.reminder(stored, db))
        }
        await announce("reminder.updated", reminder, stored, at: now)
        return JSONReply(["reminder": .object(reminder)])
    }

    /// `DELETE /messages/{id}/reminders?user_id=`: removes the member's reminder (404 when there
    /// is none); `reminder.deleted` to the member.
    func deleteReminder(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "DeleteReminder"
        let principal = try await state.authenticate(request)
        let messageId = context.parameters.get("messageId") ?? ""
        let userId = try state.actingUser(principal, query: request, operation: operation)
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let (stored, reminder) = try await state.store.write { db -> (StoredReminder, JSONObject) in
            guard let stored = try RemindersTable.fetch(db, messageId: messageId, userId: userId) else {
                throw Self.noReminder(userId, messageId, operation)
            }
            let reminder = try renderer.reminder(stored, db)
            _ = try RemindersTable.remove(db, messageId: messageId, userId: userId)
            return (stored, reminder)
        }
        await announce("reminder.deleted", reminder, stored, at: now)
        return JSONReply()
    }

    /// `POST /reminders/query` with `user_id` (a user token reads its own), `filter` (see
    /// ``ReminderFilter``), `sort` by `remind_at` (default, soonest first; saved-for-later last),
    /// `created_at` or `updated_at`, `limit` (1 to 100, 25) and `next`.
    func queryReminders(_ request: Request) async throws -> JSONReply {
        let operation = "QueryReminders"
        let principal = try await state.authenticate(request)
        let body = try await state.jsonBody(request, operation: operation)
        let userId = try state.actingUser(principal, body, operation: operation)
        let filter = try ReminderFilter(body["filter"]?.objectValue ?? [:], operation: operation)
        let sort = try DevServerState.sortKeys(body["sort"], fields: ["remind_at", "created_at", "updated_at"], operation: operation)
        let limit = try DevServerState.pageParameter(body["limit"], "limit", default: 25, range: 1...100, operation: operation)
        let offset = try DevServerState.pageOffset(body["next"], operation: operation)
        let renderer = await state.renderer(for: request)
        return JSONReply(
            try await state.store.read { db in
                let all = try RemindersTable.reminders(of: userId, db).filter(filter.matches).sorted { Self.precedes($0, $1, sort) }
                return try DevServerState.page(all, under: "reminders", offset: offset, limit: limit) { try renderer.reminder($0, db) }
            })
    }

    /// What a create or update asks (whose reminder, of which message, for when), with the
    /// time and the renderer to answer with.
    private func reminderChange(_ request: Request, _ context: DevRequestContext, _ operation: String) async throws
        -> (userId: String, messageId: String, remindAt: Date?, now: Date, renderer: Renderer)
    {
        let principal = try await state.authenticate(request)
        let body = try await state.jsonBody(request, operation: operation)
        let userId = try state.actingUser(principal, body, operation: operation)
        let remindAt = try Self.remindAt(body, operation: operation)
        return (userId, context.parameters.get("messageId") ?? "", remindAt, state.clock.now(), await state.renderer(for: request))
    }

    /// A reminder set, moved or removed: the alarm looks again at what is due next, and its user
    /// (and the webhook) hear of it.
    private func announce(_ type: String, _ reminder: JSONObject, _ stored: StoredReminder, at now: Date) async {
        state.reminders.changed()
        await state.publishUserEvent(Self.reminderEvent(type, reminder, stored, at: now), to: [stored.userId])
    }

    /// `remind_at`: a date, or nil (absent or null) for a message saved for later.
    private static func remindAt(_ body: JSONObject, operation: String) throws -> Date? {
        guard let value = body["remind_at"], !value.isNull else { return nil }
        guard let text = value.stringValue, let date = RFC3339.date(from: text) else {
            throw APIError.input(
                operation, "remind_at must be an RFC 3339 date such as \"2026-11-24T09:00:00Z\", or null to save the message for later")
        }
        return date
    }

    private static func noReminder(_ userId: String, _ messageId: String, _ operation: String) -> APIError {
        APIError.notFound(operation, "user \(userId) has no reminder for message \(messageId)")
    }

    /// The order of `sort` (by `remind_at` when empty), reminders saved for later after timed
    /// ones, then the oldest first.
    private static func precedes(_ lhs: StoredReminder, _ rhs: StoredReminder, _ sort: [(field: String, ascending: Bool)]) -> Bool {
        for key in sort.isEmpty ? [("remind_at", true)] : sort {
            let order: ComparisonResult
            switch key.field {
            case "created_at": order = lhs.createdAt.order(against: rhs.createdAt)
            case "updated_at": order = lhs.updatedAt.order(against: rhs.updatedAt)
            default:
                switch (lhs.remindAt, rhs.remindAt) {
                case let (left?, right?): order = left.order(against: right)
                case (nil, nil): order = .orderedSame
                case (nil, _): return false
                case (_, nil): return true
                }
            }
            if order != .orderedSame { return (order == .orderedAscending) == key.ascending }
        }
        return (lhs.createdAt, lhs.messageId) < (rhs.createdAt, rhs.messageId)
    }

    /// A reminder event as the service sends it: the channel, message and user ids beside the reminder.
    static func reminderEvent(_ type: String, _ reminder: JSONObject, _ stored: StoredReminder, at now: Date) -> JSONObject {
        var event = DevServerState.event(type, stored.cid, at: now)
        event["message_id"] = .string(stored.messageId)
        event["user_id"] = .string(stored.userId)
        event["reminder"] = .object(reminder)
        return event
    }
}

extension DevServerState {
    /// Sends `notification.reminder_due` for every reminder due now that has not had it, to its
    /// user's connections and the webhook; returns when the next one is due.
    func sendDueReminders() async throws -> Date? {
        let now = clock.now()
        let renderer = await renderer(baseURL: boundBaseURL)
        let (due, next) = try await store.write { db -> ([(StoredReminder, JSONObject)], Date?) in
            let due = try RemindersTable.takeDue(db, at: now).map { ($0, try renderer.reminder($0, db)) }
            return (due, try RemindersTable.nextDue(db))
        }
        for (stored, reminder) in due {
            await publishUserEvent(MessageRoutes.reminderEvent("notification.reminder_due", reminder, stored, at: clock.now()), to: [stored.userId])
        }
        return next
    }
}

extension Renderer {
    /// A reminder as answers and events carry it: its ids and times, the message as its user
    /// sees it, the user and the channel.
    func reminder(_ reminder: StoredReminder, _ db: Database) throws -> JSONObject {
        var object: JSONObject = [
            "channel_cid": .string(reminder.cid.rawValue), "message_id": .string(reminder.messageId), "user_id": .string(reminder.userId),
            "remind_at": reminder.remindAt.map { .string(RFC3339.string(from: $0)) } ?? .null,
            "created_at": .string(RFC3339.string(from: reminder.createdAt)), "updated_at": .string(RFC3339.string(from: reminder.updatedAt)),
        ]
        if let message = try MessagesTable.fetch(db, reminder.messageId), let rendered = try messages([message], viewer: reminder.userId, in: db).first {
            object["message"] = .object(rendered)
        }
        if let user = try UsersTable.fetch(db, reminder.userId) { object["user"] = .object(self.user(user)) }
        if let channel = try ChannelsTable.fetch(db, reminder.cid) {
            object["channel"] = .object(self.channel(channel, memberCount: try ChannelsTable.memberCount(db, reminder.cid), createdBy: nil))
        }
        return object
    }
}
