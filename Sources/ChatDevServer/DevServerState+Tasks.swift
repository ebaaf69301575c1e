import ChatLocking
import ChatModels
import Foundation

extension DevServerState {
    /// Runs `work` for each of `ids` and records a completed task (`GET /tasks/{id}`) whose
    /// `result` holds `ok` or the refusal for each id; returns the task's id. The service runs
    /// such bulk work in the background; the dev server does it before answering, so the task
    /// is finished when its id is.
    func runTask(for ids: [String], _ work: (String) async throws -> Void) async throws -> String {
        let created = RFC3339.string(from: clock.now())
        var result = JSONObject()
        for id in ids {
            do {
                try await work(id)
                result[id] = "ok"
            } catch let error as APIError {
                result[id] = .string(error.message)
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
