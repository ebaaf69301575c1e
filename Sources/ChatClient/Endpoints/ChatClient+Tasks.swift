import ChatModels
import Foundation

/// A background task of the service (`GET /tasks/{id}`): a bulk deletion or deactivation of
/// users, or a bulk deletion of channels.
public struct ChatTask: Sendable, Hashable {
    /// The task's id.
    public var id: String
    /// `pending`, `running`, `completed` or `failed`.
    public var status: String
    /// What it did; for bulk changes, each user id or channel id with `ok` or why it was not changed.
    public var result: [String: RawJSON]

    /// Whether it finished, successfully or not.
    public var isFinished: Bool { status == "completed" || status == "failed" }
}

extension ChatClient {
    /// A background task as it stands now (`GET /tasks/{id}`; needs the API secret).
    public func task(_ id: String) async throws -> ChatTask {
        let response = try await perform(.get("/tasks/\(Endpoint.escape(id))", operation: "GetTask"))
        guard let status = response["status"]?.stringValue else {
            throw ChatClientError(code: .invalidResponse, message: "GetTask answered without a status for task \(id)")
        }
        let result = response["result"]?.objectValue.map { Dictionary($0.members, uniquingKeysWith: { first, _ in first }) } ?? [:]
        return ChatTask(id: id, status: status, result: result)
    }

    /// The `task_id` a call that starts a background task answers.
    func taskId(of endpoint: Endpoint) async throws -> String {
        guard let id = try await perform(endpoint)["task_id"]?.stringValue else {
            throw ChatClientError(code: .invalidResponse, message: "\(endpoint.operation) answered without a task_id")
        }
        return id
    }
}
