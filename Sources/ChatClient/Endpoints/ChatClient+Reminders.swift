import ChatModels
import Foundation

extension ChatClient {
    /// Reminds `userId` (the configured user when nil) of message `messageId` at `remindAt`, or
    /// saves the message for later when `remindAt` is nil (`POST /messages/{id}/reminders`).
    /// One per user and message: a second is refused (``updateReminder(for:at:as:)`` moves it).
    @discardableResult
    public func createReminder(for messageId: String, at remindAt: Date? = nil, as userId: String? = nil) async throws -> MessageReminder {
        let operation = "CreateReminder"
        let body = try reminderBody(remindAt, as: userId, operation: operation)
        let response = try await perform(.post("/messages/\(Endpoint.escape(messageId))/reminders", body, operation: operation))
        return try reminder(in: response, operation: operation)
    }

    /// Moves `userId`'s reminder of `messageId` to `remindAt` (nil: saved for later), due again
    /// even if it already came due (`PATCH /messages/{id}/reminders`).
    @discardableResult
    public func updateReminder(for messageId: String, at remindAt: Date?, as userId: String? = nil) async throws -> MessageReminder {
        let operation = "UpdateReminder"
        let body = try reminderBody(remindAt, as: userId, operation: operation)
        let response = try await perform(.patch("/messages/\(Endpoint.escape(messageId))/reminders", body, operation: operation))
        return try reminder(in: response, operation: operation)
    }

    /// Reminds `userId` of `messageId` at `remindAt` (nil: saved for later), moving the reminder
    /// the user already had of it: ``createReminder(for:at:as:)``, and when that is refused
    /// because there is one (HTTP 400), ``updateReminder(for:at:as:)``.
    @discardableResult
    public func setReminder(for messageId: String, at remindAt: Date?, as userId: String? = nil) async throws -> MessageReminder {
        do {
            return try await createReminder(for: messageId, at: remindAt, as: userId)
        } catch let refused as ChatClientError where refused.httpStatus == 400 {
            // Another refusal (a deleted message, too many reminders) is the one to report.
            guard let moved = try? await updateReminder(for: messageId, at: remindAt, as: userId) else { throw refused }
            return moved
        }
    }

    /// Removes `userId`'s reminder of `messageId` (`DELETE /messages/{id}/reminders`).
    public func deleteReminder(for messageId: String, as userId: String? = nil) async throws {
        let operation = "DeleteReminder"
        let query = try actingUser(userId, operation: operation).map { [("user_id", $0)] } ?? []
        _ = try await perform(.delete("/messages/\(Endpoint.escape(messageId))/reminders", query: query, operation: operation))
    }

    /// `userId`'s reminders, the soonest due first and those saved for later last
    /// (`POST /reminders/query`): only those of `cid` when given, only those due after
    /// `dueAfter` and by `dueBy` when given. Answers the page and the `next` to pass for the one
    /// after it (nil on the last).
    public func queryReminders(
        in cid: ChannelId? = nil, dueAfter: Date? = nil, dueBy: Date? = nil, limit: Int = 25, next: String? = nil, as userId: String? = nil
    ) async throws -> (reminders: [MessageReminder], next: String?) {
        let operation = "QueryReminders"
        var filter: JSONObject = [:]
        if let cid { filter["channel_cid"] = .string(cid.rawValue) }
        var due = JSONObject()
        if let dueAfter { due["$gt"] = .string(RFC3339.string(from: dueAfter)) }
        if let dueBy { due["$lte"] = .string(RFC3339.string(from: dueBy)) }
        if !due.isEmpty { filter["remind_at"] = .object(due) }
        var body: JSONObject = ["filter": .object(filter), "limit": .number(JSONNumber(limit))]
        if let next { body["next"] = .string(next) }
        if let user = try actingUser(userId, operation: operation) { body["user_id"] = .string(user) }
        let response = try await perform(.post("/reminders/query", body, idempotent: true, operation: operation))
        let reminders = try (response["reminders"]?.arrayValue ?? []).map { try MessageReminder(json: $0, operation: operation) }
        return (reminders, response["next"]?.stringValue)
    }

    private func reminderBody(_ remindAt: Date?, as userId: String?, operation: String) throws -> JSONObject {
        var body: JSONObject = ["remind_at": remindAt.map { .string(RFC3339.string(from: $0)) } ?? .null]
        if let user = try actingUser(userId, operation: operation) { body["user_id"] = .string(user) }
        return body
    }

    private func reminder(in response: JSONObject, operation: String) throws -> MessageReminder {
        guard let reminder = response["reminder"] else {
            throw ChatClientError(code: .invalidResponse, message: "\(operation) answered without a reminder")
        }
        return try MessageReminder(json: reminder, operation: operation)
    }
}
