import ChatModels
import Foundation
import GRDB
import Hummingbird

/// Custom commands: a message starting with `/name`, where `name` is a custom command its channel
/// type offers, goes to the app's `custom_action_handler_url` before anything is posted, and the
/// handler's answer says what becomes of it: posted (`regular`, rewritten as it likes), shown
/// to its author alone (`ephemeral`, with buttons, say), refused (`error`) or dropped (`null`).
/// A button on an ephemeral message (`POST /messages/{id}/action`) asks the handler again,
/// with the button's `form_data`.
extension MessageRoutes {
    /// Runs the custom command `message` invokes, in place of posting it.
    func sendCommand(_ command: CommandDefinition, args: String, message: StoredMessage, principal: Principal, request: Request) async throws
        -> JSONReply
    {
        let operation = "SendMessage"
        var message = message
        message.data["command"] = .string(command.name)
        message.data["args"] = .string(args)
        let renderer = await state.renderer(for: request)
        let (rendered, user) = try await state.store.write { [message] db -> (JSONObject, JSONObject?) in
            try requireUnusedId(message.id, db, operation: operation)
            try UsersTable.ensure(db, message.userId, now: message.createdAt)
            let rendered = try renderer.messages([message], viewer: principal.userId, in: db)[0]
            return (rendered, rendered["user"]?.objectValue)
        }
        guard let handler = state.customActionHandler else {
            return MessageRoutes.refusal(
                rendered, "/\(command.name) is a custom command, and the app has no custom_action_handler_url to answer it.")
        }
        let reply = await handler.call(command: command.name, message: rendered, user: user, formData: nil)
        return try await apply(reply, to: message, rendered: rendered, principal: principal, renderer: renderer, operation: operation)
    }

    /// `POST /messages/{id}/action` `{"form_data": {...}, "user_id"?}`: a button on an ephemeral
    /// message its custom command answered.
    func runAction(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "RunMessageAction"
        let principal = try await state.authenticate(request)
        let id = context.parameters.get("messageId") ?? ""
        let body = try await state.jsonBody(request, operation: operation)
        guard case .object(let formData)? = body["form_data"], !formData.isEmpty,
            formData.members.allSatisfy({ MessageRoutes.isScalar($0.value) })
        else {
            throw APIError.input(
                operation, "form_data is required: an object of the action's name and value (strings), such as {\"action\": \"confirm\"}")
        }
        let actor = try state.actingUser(principal, body, operation: operation)
        guard let message = state.ephemeral.message(id) else {
            let stored = try await state.store.read { db in try MessagesTable.fetch(db, id) != nil }
            guard stored else { throw APIError.notFound(operation, "message \(id) does not exist") }
            throw APIError.input(
                operation, "message \(id) is not an ephemeral command message; actions run on what a custom command answered as ephemeral")
        }
        guard message.userId == actor else {
            throw APIError.forbidden(operation, "message \(id) is shown to \(message.userId) alone; only they can act on it")
        }
        let renderer = await state.renderer(for: request)
        let rendered = try await state.store.read { db in try renderer.messages([message], viewer: principal.userId, in: db)[0] }
        let command = message.data["command"]?.stringValue ?? ""
        guard let handler = state.customActionHandler else {
            return MessageRoutes.refusal(rendered, "The app has no custom_action_handler_url any more to answer /\(command).")
        }
        let reply = await handler.call(command: command, message: rendered, user: rendered["user"]?.objectValue, formData: formData)
        return try await apply(reply, to: message, rendered: rendered, principal: principal, renderer: renderer, operation: operation)
    }

    /// Does what the handler answered for `message` (`rendered` as the handler saw it).
    private func apply(
        _ reply: CustomActionHandler.Reply, to message: StoredMessage, rendered: JSONObject, principal: Principal, renderer: Renderer,
        operation: String
    ) async throws -> JSONReply {
        let command = message.data["command"]?.stringValue ?? ""
        switch reply {
        case .failed(let reason):
            return MessageRoutes.refusal(rendered, "The /\(command) command failed: \(reason).")
        case .remove:
            state.ephemeral.remove(message.id)
            return JSONReply(["message": .null], status: .created)
        case .message(let fields, let type):
            var rewritten = message
            rewritten.data = MessageRoutes.rewritten(message.data, by: fields)
            if type == "error" {
                return MessageRoutes.refusal(rendered, fields["text"]?.stringValue ?? "The /\(command) command refused the message.")
            }
            do {
                try MessageRoutes.validate(rewritten.data, operation: operation)
            } catch let error as APIError {
                return MessageRoutes.refusal(rendered, "The /\(command) command's handler answered a message the service refuses: \(error.message)")
            }
            if type == "ephemeral" {
                rewritten.type = "ephemeral"
                rewritten.updatedAt = state.clock.now()
                state.ephemeral.keep(rewritten)
                let object = try await state.store.read { [rewritten] db in try renderer.messages([rewritten], viewer: principal.userId, in: db)[0] }
                return JSONReply(["message": .object(object)], status: .created)
            }
            let now = state.clock.now()
            rewritten.type = message.parentId != nil ? "reply" : "regular"
            rewritten.createdAt = now
            rewritten.updatedAt = now
            let (object, event) = try await state.store.write { [rewritten] db in
                try MessageRoutes.requireNewId(rewritten.id, db, operation: operation)
                return try MessageRoutes.post(rewritten, renderer: renderer, viewer: principal.userId, db)
            }
            state.ephemeral.remove(message.id)
            await state.publish([event])
            return JSONReply(["message": .object(object)], status: .created)
        }
    }

    /// `data` with what the handler answered: every field it may write, `null` removing one;
    /// the command and its arguments stay as the user typed them.
    static func rewritten(_ data: JSONObject, by fields: JSONObject) -> JSONObject {
        var result = data
        for (key, value) in fields where !serverOwnedKeys.contains(key) && key != "command" && key != "args" {
            result[key] = value.isNull ? nil : value
        }
        return result
    }

    /// Whether `value` is a string, number or boolean: what a form field holds.
    static func isScalar(_ value: RawJSON) -> Bool {
        switch value {
        case .string, .number, .bool: true
        default: false
        }
    }

    /// The message as it was, answered back as type `error` with `text`: nothing is posted,
    /// and clients show the text in its place.
    static func refusal(_ rendered: JSONObject, _ text: String) -> JSONReply {
        var object = rendered
        object["type"] = "error"
        object["text"] = .string(text)
        object["html"] = .string(Renderer.html(text))
        object["attachments"] = []
        return JSONReply(["message": .object(object)], status: .created)
    }
}
