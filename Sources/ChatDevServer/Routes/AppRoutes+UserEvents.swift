import ChatModels
import Foundation
import Hummingbird

extension AppRoutes {
    /// `POST /users/{id}/event` with `{"event": {"type": …, custom fields}}` (server tokens
    /// only): a custom event for one user, sent to every connection that user has open and to
    /// no one else. It belongs to no channel, so it carries no `cid` and `/sync` does not
    /// replay it; `user` is the user it was sent to.
    func sendUserEvent(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "SendUserCustomEvent"
        try await state.requireServer(request, operation, "user events can only be sent")
        let userId = context.parameters.get("userId") ?? ""
        let body = try await state.jsonBody(request, operation: operation)
        guard case .object(let input)? = body["event"], let type = input["type"]?.stringValue, !type.isEmpty else {
            throw APIError.input(operation, "event with a type is required")
        }
        try InteractionRoutes.requireCustomType(type, operation: operation)
        if let key = ["cid", "channel_id", "channel_type"].first(where: { input[$0] != nil }) {
            throw APIError.input(operation, "a user event belongs to no channel and cannot carry \(key); send it to the channel instead")
        }
        guard let user = try await state.store.read({ db in try UsersTable.fetch(db, userId) }) else {
            throw APIError.notFound(operation, "user \(userId) does not exist")
        }
        var event = input
        event["created_at"] = .string(RFC3339.string(from: state.clock.now()))
        event["user"] = .object(await state.renderer(for: request).user(user))
        await state.hub.publish(event, toUsers: [userId])
        return JSONReply(["event": .object(event)], status: .created)
    }
}
