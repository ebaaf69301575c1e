import ChatLocking
import ChatModels
import Foundation

extension DevServerState {
    /// Runs `work` for each of `items` (user ids, channel ids) and records a completed task
    /// (`GET /tasks/{id}`) whose `result` holds `ok` or the refusal for each, keyed by its
    /// description; returns the task's id. The service runs such bulk work in the background;
    /// the dev server does it before answering, so the task is finished when its id is.
    func runTask<Item: CustomStringConvertible>(for items: [Item], _ work: (Item) async throws -> Void) async throws -> String {
        let created = RFC3339.string(from: clock.now())
        var result = JSONObject()
        for item in items {
            do {
                try await work(item)
                result[item.description] = "ok"
            } catch let error as APIError {
                result[item.description] = .string(error.message)
            }
        }
        let taskId = UUID().uuidString.lowercased()
        let task: JSONObject = [
            "task_id": .string(taskId), "status": "completed", "created_at": .string(created),
            "updated_at": .string(RFC3339.string(from: clock.now())), "result": .object(result),
        ]
        tasks.withLock { $0[taskId] = task }
        return taskId
    }
}
