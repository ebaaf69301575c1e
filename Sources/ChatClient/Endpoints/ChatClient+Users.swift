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

    /// Sets and removes single fields of an existing user, keeping the others (`PATCH /users`).
    /// `set` may hold `name`, `image`, `role` (server token only) and custom fields.
    @discardableResult
    public func partialUpdateUser(_ id: String, set: [String: RawJSON] = [:], unset: [String] = []) async throws -> User {
        let change: JSONObject = ["id": .string(id), "set": .object(JSONObject(set)), "unset": .array(unset.map(RawJSON.string))]
        let response = try await perform(
            Endpoint(method: "PATCH", path: "/users", body: ["users": [.object(change)]], isIdempotent: true, operation: "UpdateUsersPartial"))
        guard let json = response["users"]?[id] else {
            throw ChatClientError(code: .invalidResponse, message: "UpdateUsersPartial answered without user \(id)")
        }
        return try User(json: json)
    }

    /// Sends a custom event of `type` to every connection `userId` has open, and to no one else
    /// (`POST /users/{id}/event`; needs the API secret): how a backend tells one user's app
    /// something no channel should see. `extraData` travels at the top level of the event.
    public func sendUserEvent(_ type: String, to userId: String, extraData: [String: RawJSON] = [:]) async throws {
        var event = JSONObject(extraData)
        event["type"] = .string(type)
        _ = try await perform(.post("/users/\(Endpoint.escape(userId))/event", ["event": .object(event)], operation: "SendUserCustomEvent"))
    }

    /// Users by id (`GET /users?payload=`).
    public func queryUsers(ids: [String]) async throws -> [User] {
        let payload: JSONObject = ["filter_conditions": ["id": ["$in": .array(ids.map(RawJSON.string))]], "limit": 100]
        let response = try await perform(.get("/users", payload: payload, operation: "QueryUsers"))
        return try (response["users"]?.arrayValue ?? []).map { try User(json: $0) }
    }
}
