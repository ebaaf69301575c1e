import ChatLocking
import ChatModels
import Foundation
import Hummingbird

extension AppRoutes {
    /// `POST /users/delete` with `user_ids` (1 to 100), `user` (`soft` or `hard`) and `messages`
    /// (`soft`, `hard` or left out to keep them), server tokens only: deletes each user as
    /// `DELETE /users/{id}` does and answers a `task_id` for `GET /tasks/{id}`. The dev server
    /// does the work before answering, so the task is already completed; its `result` says,
    /// per user, `ok` or why that user was not deleted.
    func deleteUsers(_ request: Request) async throws -> JSONReply {
        let operation = "DeleteUsers"
        try await state.requireServer(request, operation, "users can only be deleted")
        let body = try await state.jsonBody(request, operation: operation)
        let ids = try Self.taskUserIds(body, operation: operation)
        for unsupported in ["conversations", "new_channel_owner_id"] where !(body[unsupported]?.isNull ?? true) {
            throw APIError.input(operation, "\(unsupported) is not supported by the dev server; leave it out")
        }
        guard let hard = try Self.deletionMode(body["user"], field: "user", operation: operation) else {
            throw APIError.input(operation, "user is required: soft or hard")
        }
        let messages = try Self.deletionMode(body["messages"], field: "messages", operation: operation)
        if hard, messages != true {
            throw APIError.input(operation, "user: hard needs messages: hard, as on the service (a user deleted for good keeps no messages)")
        }
        let task = try await state.runTask(for: ids) { id in _ = try await delete(id, hard: hard, deletingMessages: messages, request, operation) }
        return JSONReply(["task_id": .string(task)], status: .created)
    }

    /// `POST /users/deactivate` with `user_ids` (1 to 100), `mark_messages_deleted` and
    /// `created_by_id`, server tokens only: deactivates each user as `POST /users/{id}/deactivate`
    /// does and answers a `task_id`, completed already as for ``deleteUsers(_:)``.
    func deactivateUsers(_ request: Request) async throws -> JSONReply {
        let operation = "DeactivateUsers"
        try await state.requireServer(request, operation, "users can only be deactivated")
        let body = try await state.jsonBody(request, operation: operation)
        let ids = try Self.taskUserIds(body, operation: operation)
        let marks = body["mark_messages_deleted"]?.flag ?? false
        let actor = body["created_by_id"]?.stringValue
        let task = try await state.runTask(for: ids) { id in
            _ = try await deactivate(id, markingMessagesDeleted: marks, by: actor, request, operation)
        }
        return JSONReply(["task_id": .string(task)], status: .created)
    }

    /// `GET /tasks/{id}` (server tokens only): a task of ``deleteUsers(_:)``,
    /// ``deactivateUsers(_:)``, `POST /channels/delete` or `POST /export_channels`, kept while the
    /// server runs.
    func task(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "GetTask"
        try await state.requireServer(request, operation, "tasks can only be read")
        return JSONReply(try state.task(context.parameters.get("taskId") ?? "", baseURL: state.baseURL(for: request), operation: operation))
    }

    private static func taskUserIds(_ body: JSONObject, operation: String) throws -> [String] {
        guard let ids = body["user_ids"]?.arrayValue?.compactMap(\.stringValue), (1...100).contains(ids.count) else {
            throw APIError.input(operation, "user_ids must be a list of 1 to 100 user ids")
        }
        return ids
    }
}
