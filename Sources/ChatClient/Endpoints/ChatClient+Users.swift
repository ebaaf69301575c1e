import ChatModels
import Foundation

extension ChatClient {
    /// Creates or replaces users (`POST /users`).
    @discardableResult
    public func upsertUsers(_ users: [User]) async throws -> [User] {
        let body: JSONObject = ["users": .object(JSONObject(users.map { ($0.id, $0.json) }))]
        let response = try await perform(.post("/users", body, idempotent: true, operation: "UpdateUsers"))
        return try (response["users"]?.objectValue ?? [:]).members.map { try User(json: $0.value) }
    }

    /// Users by id (`GET /users?payload=`).
    public func queryUsers(ids: [String]) async throws -> [User] {
        let payload: JSONObject = ["filter_conditions": ["id": ["$in": .array(ids.map(RawJSON.string))]], "limit": 100]
        let response = try await perform(.get("/users", payload: payload, operation: "QueryUsers"))
        return try (response["users"]?.arrayValue ?? []).map { try User(json: $0) }
    }
}
