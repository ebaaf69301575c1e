import ChatModels
import Foundation
import GRDB
import Hummingbird

extension AppRoutes {
    /// One user's change in a `PATCH /users` body.
    struct UserFieldChange: Sendable {
        let id: String
        let set: JSONObject
        let unset: [String]
    }

    /// `PATCH /users` with `{"users": [{"id", "set": {…}, "unset": […]}]}`: sets and removes single
    /// fields of existing users, keeping the others; answers `{"users": {id: user}}`.
    func updateUsersPartial(_ request: Request) async throws -> JSONReply {
        let operation = "UpdateUsersPartial"
        let principal = try await state.authenticate(request)
        let body = try await state.jsonBody(request, operation: operation)
        let changes = try Self.userFieldChanges(body["users"], operation: operation)
        for change in changes {
            if let userId = principal.userId {
                guard userId == change.id else { throw APIError.forbidden(operation, "user \(userId) may only update itself") }
                guard change.set["role"] == nil else { throw APIError.forbidden(operation, "user \(userId) may not change its own role") }
            }
        }
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let stored = try await state.store.write { db in
            try changes.map { change -> StoredUser in
                guard let user = try UsersTable.fetch(db, change.id) else {
                    throw APIError.notFound(operation, "user \(change.id) does not exist; create it with POST /users first")
                }
                var fields = user.data
                for (key, value) in change.set where key != "role" { fields[key] = value }
                for key in change.unset { fields[key] = nil }
                fields["role"] = change.set["role"] ?? .string(user.role)
                return try UsersTable.upsert(db, fields, id: change.id, now: now)
            }
        }
        return JSONReply(["users": .object(JSONObject(stored.map { ($0.id, RawJSON.object(renderer.user($0))) }))])
    }

    /// The changes of a `users` array, each checked: an id, at least one field, fields the
    /// server does not own, a role that is a string, and no user twice.
    static func userFieldChanges(_ value: RawJSON?, operation: String) throws -> [UserFieldChange] {
        guard let entries = value?.arrayValue, !entries.isEmpty else {
            throw APIError.input(operation, "users must be a non-empty array of {\"id\", \"set\", \"unset\"}")
        }
        guard entries.count <= 100 else { throw APIError.input(operation, "users has \(entries.count) entries; at most 100 are updated at once") }
        var seen = Set<String>()
        return try entries.enumerated().map { index, entry in
            let path = "users[\(index)]"
            guard let id = entry["id"]?.stringValue, !id.isEmpty else { throw APIError.input(operation, "\(path).id must be a non-empty string") }
            guard seen.insert(id).inserted else { throw APIError.input(operation, "\(path): user \(id) is listed twice") }
            let changes = try FieldChanges(
                entry.objectValue ?? [:], reserved: UsersTable.serverKeys.subtracting(["role"]), at: path, operation: operation)
            let (set, unset) = (changes.set, changes.unset)
            if unset.contains("role") { throw APIError.input(operation, "\(path): role cannot be unset; set it to user instead") }
            if let role = set["role"], role.stringValue?.isEmpty != false {
                throw APIError.input(operation, "\(path).set.role must be a non-empty string")
            }
            return UserFieldChange(id: id, set: set, unset: unset)
        }
    }
}
