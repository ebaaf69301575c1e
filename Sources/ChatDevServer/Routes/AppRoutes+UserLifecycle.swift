import ChatLocking
import ChatModels
import Foundation
import GRDB
import Hummingbird

extension AppRoutes {
    /// `DELETE /users/{id}?mark_messages_deleted=&hard_delete=` (server tokens only): the user
    /// can no longer connect or act (its connections are closed), and `user.deleted` tells the
    /// webhook and the users it shares a channel with. `mark_messages_deleted` deletes its
    /// messages too (for good with `hard_delete`), announced per channel with
    /// `user.messages.deleted`. A soft-deleted user comes back with `POST /users/restore`; a
    /// hard-deleted one loses its custom fields and channel memberships for good.
    func deleteUser(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "DeleteUser"
        try await state.requireServer(request, operation, "users can only be deleted")
        let userId = context.parameters.get("userId") ?? ""
        if request.queryFlag("delete_conversation_channels") {
            throw APIError.input(
                operation,
                "delete_conversation_channels is not supported by the dev server; delete the channels with DELETE /channels/{type}/{id}")
        }
        let hard = request.queryFlag("hard_delete")
        let messages: Bool? = request.queryFlag("mark_messages_deleted") ? hard : nil
        return JSONReply(["user": .object(try await delete(userId, hard: hard, deletingMessages: messages, request, operation))])
    }

    /// `POST /users/{id}/deactivate` with `mark_messages_deleted` and `created_by_id` (server
    /// tokens only): the user can no longer connect or act until reactivated; `user.deactivated`
    /// tells the webhook and the users it shares a channel with.
    func deactivateUser(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "DeactivateUser"
        try await state.requireServer(request, operation, "users can only be deactivated")
        let userId = context.parameters.get("userId") ?? ""
        let body = try await state.jsonBody(request, operation: operation)
        let marksMessages = body["mark_messages_deleted"]?.flag ?? false
        let user = try await deactivate(userId, markingMessagesDeleted: marksMessages, by: body["created_by_id"]?.stringValue, request, operation)
        return JSONReply(["user": .object(user)], status: .created)
    }

    /// Deletes user `userId` (for good when `hard`), and its messages when `messages` is set
    /// (for good when true), as ``deleteUser(_:_:)`` describes; returns the user as rendered.
    func delete(_ userId: String, hard: Bool, deletingMessages messages: Bool?, _ request: Request, _ operation: String) async throws
        -> JSONObject
    {
        let fields: JSONObject = [
            "hard_delete": .bool(hard), "mark_messages_deleted": .bool(messages != nil), "delete_conversation_channels": false,
        ]
        return try await changeLifecycle(of: userId, announcing: "user.deleted", fields, deletingMessages: messages, request, operation) {
            user, now, _ in
            if user.isHardDeleted || (user.deletedAt != nil && !hard) {
                throw APIError.input(operation, "user \(user.id) is already deleted")
            }
            user.deletedAt = user.deletedAt ?? now
            user.isHardDeleted = hard
            // Answered and announced as stored: without its custom fields.
            if hard { user.data = JSONObject() }
            return []
        }
    }

    /// Deactivates user `userId`, soft-deleting its messages when asked, as
    /// ``deactivateUser(_:_:)`` describes; returns the user as rendered.
    func deactivate(_ userId: String, markingMessagesDeleted: Bool, by actor: String?, _ request: Request, _ operation: String) async throws
        -> JSONObject
    {
        try await changeLifecycle(
            of: userId, announcing: "user.deactivated", [:], deletingMessages: markingMessagesDeleted ? false : nil, by: actor, request, operation
        ) { user, now, _ in
            if user.deletedAt != nil { throw APIError.input(operation, "user \(user.id) is deleted, so it cannot be deactivated") }
            if user.deactivatedAt != nil { throw APIError.input(operation, "user \(user.id) is already deactivated") }
            user.deactivatedAt = now
            return []
        }
    }

    /// `POST /users/{id}/reactivate` with `restore_messages`, `name` and `created_by_id` (server
    /// tokens only): the user may connect and act again, `user.reactivated` says so, and
    /// `restore_messages` undeletes the messages its deactivation deleted (each announced with
    /// `message.undeleted`).
    func reactivateUser(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "ReactivateUser"
        try await state.requireServer(request, operation, "users can only be reactivated")
        let userId = context.parameters.get("userId") ?? ""
        let body = try await state.jsonBody(request, operation: operation)
        let restoresMessages = body["restore_messages"]?.flag ?? false
        let name = body["name"]?.stringValue
        let user = try await changeLifecycle(
            of: userId, announcing: "user.reactivated", [:], deletingMessages: nil, by: body["created_by_id"]?.stringValue, request, operation
        ) { user, now, db in
            guard let deactivatedAt = user.deactivatedAt else { throw APIError.input(operation, "user \(user.id) is not deactivated") }
            user.deactivatedAt = nil
            if let name { user.data["name"] = .string(name) }
            return restoresMessages ? try MessagesTable.deletedMessages(db, of: user.id, at: deactivatedAt) : []
        }
        return JSONReply(["user": .object(user)], status: .created)
    }

    /// `POST /users/restore` with `user_ids` (server tokens only): soft-deleted users may connect
    /// and act again. An unknown user (16), one not deleted or deleted for good (4) is refused
    /// before any is restored.
    func restoreUsers(_ request: Request) async throws -> JSONReply {
        let operation = "RestoreUsers"
        try await state.requireServer(request, operation, "users can only be restored")
        let body = try await state.jsonBody(request, operation: operation)
        guard let ids = body["user_ids"]?.arrayValue?.compactMap(\.stringValue), !ids.isEmpty else {
            throw APIError.input(operation, "user_ids must be a list of user ids")
        }
        let now = state.clock.now()
        let restored = try await state.store.write { db in
            try ids.map { id in
                guard var user = try UsersTable.fetch(db, id) else { throw APIError.notFound(operation, "user \(id) does not exist") }
                if user.isHardDeleted { throw APIError.input(operation, "user \(id) was deleted for good and cannot be restored") }
                guard user.deletedAt != nil else { throw APIError.input(operation, "user \(id) is not deleted") }
                user.deletedAt = nil
                try UsersTable.storeLifecycle(db, user, now: now)
                return user
            }
        }
        state.disabledUsers.withLock { disabled in
            for user in restored { disabled[user.id] = user.disabledReason }
        }
        return JSONReply([:], status: .created)
    }

    /// Loads user `userId` (16 when there is none), lets `update` change it (or refuse), stores
    /// it, deletes its messages when asked, and after the write closes its connections when it
    /// may no longer connect and announces `type` with the user and `fields`. `update` returns
    /// the soft-deleted messages to bring back, each announced with `message.undeleted`.
    /// Returns the user as rendered.
    private func changeLifecycle(
        of userId: String, announcing type: String, _ fields: JSONObject, deletingMessages hard: Bool?, by actor: String? = nil,
        _ request: Request, _ operation: String,
        update: @escaping @Sendable (inout StoredUser, Date, Database) throws -> [StoredMessage]
    ) async throws -> JSONObject {
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let (user, rendered, audience, events) = try await state.store.write { db -> (StoredUser, JSONObject, Set<String>, [PendingEvent]) in
            guard var user = try UsersTable.fetch(db, userId) else { throw APIError.notFound(operation, "user \(userId) does not exist") }
            let restored = try update(&user, now, db)
            try UsersTable.storeLifecycle(db, user, now: now)
            let rendered = renderer.user(user)
            var audience = Set<String>()
            for cid in try ChannelsTable.channelIds(ofMember: userId, db) {
                audience.formUnion(try ChannelsTable.members(db, cid).map(\.userId))
            }
            audience.remove(userId)
            var events = try hard.map { try Self.deleteMessages(of: userId, rendered: rendered, in: nil, hard: $0, at: now, db) } ?? []
            let restorer = try actor.flatMap { try UsersTable.fetch(db, $0) } ?? user
            for var message in restored {
                message.restore(at: now)
                try MessagesTable.update(db, message)
                events.append(
                    try MessageRoutes.announce(
                        message, as: "message.undeleted", by: .object(renderer.user(restorer)), viewer: nil, renderer: renderer, at: now, in: db
                    ).1)
            }
            if user.isHardDeleted { try ChannelsTable.removeMemberships(of: userId, db) }
            return (user, rendered, audience, events)
        }
        state.disabledUsers.withLock { $0[userId] = user.disabledReason }
        if let reason = user.disabledReason { _ = await state.hub.disconnect(userId: userId, code: 1000, reason: reason) }
        await state.publish(events)
        var event: JSONObject = ["type": .string(type), "created_at": .string(RFC3339.string(from: now)), "user": .object(rendered)]
        for (key, value) in fields { event[key] = value }
        await state.publishUserEvent(event, to: audience)
        return rendered
    }
}
