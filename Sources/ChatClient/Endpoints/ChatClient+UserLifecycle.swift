import ChatModels
import Foundation

extension ChatClient {
    /// Deactivates `userId` (`POST /users/{id}/deactivate`; needs the API secret): it can no
    /// longer connect or act (its connections are closed) until ``reactivateUser(_:restoringMessages:name:by:)``.
    /// `markingMessagesDeleted` soft-deletes the messages it posted, announced in each channel
    /// with one `user.messages.deleted`. `by` names who did it.
    @discardableResult
    public func deactivateUser(_ userId: String, markingMessagesDeleted: Bool = false, by actor: String? = nil) async throws -> User {
        var body: JSONObject = ["mark_messages_deleted": .bool(markingMessagesDeleted)]
        if let actor { body["created_by_id"] = .string(actor) }
        return try await lifecycleUser(.post("/users/\(Endpoint.escape(userId))/deactivate", body, operation: "DeactivateUser"), userId)
    }

    /// Reactivates a deactivated `userId` (`POST /users/{id}/reactivate`; needs the API secret).
    /// `restoringMessages` undeletes the messages its deactivation deleted (each announced with
    /// `message.undeleted`); `name` gives it a new name.
    @discardableResult
    public func reactivateUser(_ userId: String, restoringMessages: Bool = false, name: String? = nil, by actor: String? = nil) async throws
        -> User
    {
        var body: JSONObject = ["restore_messages": .bool(restoringMessages)]
        if let name { body["name"] = .string(name) }
        if let actor { body["created_by_id"] = .string(actor) }
        return try await lifecycleUser(.post("/users/\(Endpoint.escape(userId))/reactivate", body, operation: "ReactivateUser"), userId)
    }

    /// Deletes `userId` (`DELETE /users/{id}`; needs the API secret): it can no longer connect or
    /// act. `messages` deletes the messages it posted too (announced in each channel with one
    /// `user.messages.deleted`; `.hard` also deletes the user for good, as the service only
    /// removes messages for good with the user). Without `messages`, `hard` deletes only the user
    /// for good. A user deleted softly comes back with ``restoreUsers(_:)``.
    @discardableResult
    public func deleteUser(_ userId: String, messages: MessageDeletionMode? = nil, hard: Bool = false) async throws -> User {
        let isHard = hard || messages == .hard
        let query = [("mark_messages_deleted", messages == nil ? "false" : "true"), ("hard_delete", isHard ? "true" : "false")]
        return try await lifecycleUser(.delete("/users/\(Endpoint.escape(userId))", query: query, operation: "DeleteUser"), userId)
    }

    /// Brings back users deleted softly (`POST /users/restore`; needs the API secret). Their
    /// messages stay deleted.
    public func restoreUsers(_ userIds: [String]) async throws {
        _ = try await perform(.post("/users/restore", ["user_ids": .array(userIds.map(RawJSON.string))], operation: "RestoreUsers"))
    }

    private func lifecycleUser(_ endpoint: Endpoint, _ userId: String) async throws -> User {
        let response = try await perform(endpoint)
        guard let json = response["user"] else {
            throw ChatClientError(code: .invalidResponse, message: "\(endpoint.operation) answered without user \(userId)")
        }
        return try User(json: json)
    }
}

extension ChatClient {
    /// Deletes up to 100 users in the background (`POST /users/delete`; needs the API secret),
    /// each as ``deleteUser(_:messages:hard:)`` does; `hard` needs `messages: .hard`. Answers
    /// the id of the task to follow with ``task(_:)``.
    public func deleteUsers(_ userIds: [String], hard: Bool = false, messages: MessageDeletionMode? = nil) async throws -> String {
        var body: JSONObject = ["user_ids": .array(userIds.map(RawJSON.string)), "user": hard ? "hard" : "soft"]
        if let messages { body["messages"] = .string(messages.rawValue) }
        return try await taskId(of: .post("/users/delete", body, operation: "DeleteUsers"))
    }

    /// Deactivates up to 100 users in the background (`POST /users/deactivate`; needs the API
    /// secret), each as ``deactivateUser(_:markingMessagesDeleted:by:)`` does. Answers the id of
    /// the task to follow with ``task(_:)``.
    public func deactivateUsers(_ userIds: [String], markingMessagesDeleted: Bool = false, by actor: String? = nil) async throws -> String {
        var body: JSONObject = ["user_ids": .array(userIds.map(RawJSON.string)), "mark_messages_deleted": .bool(markingMessagesDeleted)]
        if let actor { body["created_by_id"] = .string(actor) }
        return try await taskId(of: .post("/users/deactivate", body, operation: "DeactivateUsers"))
    }
}
