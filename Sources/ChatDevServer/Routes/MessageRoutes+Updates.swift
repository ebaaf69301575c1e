import ChatModels
import Foundation
import GRDB
import Hummingbird

/// Edits, full (`POST /messages/{id}`) and partial (`PUT /messages/{id}`), and the events they make.
extension MessageRoutes {
    /// `POST /messages/{id}` (replace the editable fields) and `PUT /messages/{id}` (`set`/`unset`).
    func update(_ request: Request, _ context: DevRequestContext, partial: Bool) async throws -> JSONReply {
        let operation = partial ? "UpdateMessagePartial" : "UpdateMessage"
        let principal = try await state.authenticate(request)
        let id = context.parameters.get("messageId") ?? ""
        let body = try await state.jsonBody(request, operation: operation)
        let enrichment = state.enrichmentMode(body)
        let sent = (partial ? body["set"] : body["message"])?.objectValue ?? [:]
        let actor = (try? state.actingUser(principal, body, operation: operation)) ?? (try? state.actingUser(principal, sent, operation: operation))
        let pinsOnly = partial && !sent.isEmpty && sent.members.allSatisfy { MessagePins.senderKeys.contains($0.key) }
            && (body["unset"]?.arrayValue ?? []).isEmpty
        var preview: (link: URL, attachment: JSONObject?)?
        if enrichment == .beforeAnswering {
            // The link is fetched before the write, from what the edit will make of the message.
            let current = try await state.store.read { db in
                try MessageRoutes.editableMessage(db, id, principal, pinsOnly: pinsOnly, operation: operation)
            }
            let edited = try MessageRoutes.edited(current.data, by: body, partial: partial, operation: operation)
            if MessageRoutes.rewritesText(partial: partial, current.data, edited), let link = URLEnricher.linkToPreview(edited) {
                preview = (link, await state.enricher.preview(of: link))
            }
        }
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let (rendered, events, wantsPreview) = try await state.store.write { [preview] db -> (JSONObject, [PendingEvent], Bool) in
            var message = try MessageRoutes.editableMessage(db, id, principal, pinsOnly: pinsOnly, operation: operation)
            let edited = try MessagePins.applying(
                to: try MessageRoutes.edited(message.data, by: body, partial: partial, operation: operation), sent: sent,
                before: message.data, actor: actor, now: now, operation: operation)
            var wantsPreview = false
            // What the message said before goes to its history, unless the edit only pins it.
            if !pinsOnly, edited != message.data { try MessageHistoryTable.keep(db, message, replacedBy: actor ?? message.userId) }
            if enrichment != .off, MessageRoutes.rewritesText(partial: partial, message.data, edited) {
                let link = URLEnricher.linkToPreview(edited)
                let attachment = preview.flatMap { $0.link == link ? $0.attachment : nil }
                message.data = URLEnricher.applying(attachment, to: edited, isEdit: true)
                wantsPreview = link != nil && attachment == nil
            } else {
                message.data = edited
            }
            message.updatedAt = now
            try MessagesTable.update(db, message)
            let (rendered, event) = try MessageRoutes.updated(message, viewer: principal.userId, renderer: renderer, at: now, in: db)
            return (rendered, [event], wantsPreview)
        }
        await state.publish(events)
        if enrichment == .afterAnswering, wantsPreview { addPreviewLater(to: id, renderer: renderer) }
        return JSONReply(["message": .object(rendered)], status: .created)
    }

    /// The message `principal` may edit: its own, or any with a server token; with `pinsOnly`
    /// (an edit that only pins or unpins) any message of a channel it is a member of.
    static func editableMessage(_ db: Database, _ id: String, _ principal: Principal, pinsOnly: Bool = false, operation: String) throws
        -> StoredMessage
    {
        let message = try DevServerState.requireMessage(db, id, operation: operation)
        try DevServerState.requireAccess(db, message.cid, principal, operation: operation)
        if !pinsOnly, let userId = principal.userId, userId != message.userId {
            throw APIError.forbidden(operation, "user \(userId) may only edit their own messages")
        }
        return message
    }

    /// A message's fields after an edit: `set`/`unset` (partial), or the whole `message` (full).
    static func edited(_ data: JSONObject, by body: JSONObject, partial: Bool, operation: String) throws -> JSONObject {
        var data = data
        if partial {
            if let set = body["set"] {
                guard case .object(let fields) = set else { throw APIError.input(operation, "set must be an object") }
                try MessageRoutes.validate(fields, operation: operation)
                for (key, value) in fields where !MessageRoutes.serverOwnedKeys.contains(key) { data[key] = value }
            }
            for key in body["unset"]?.arrayValue?.compactMap(\.stringValue) ?? [] { data[key] = nil }
            return data
        }
        guard case .object(let input)? = body["message"] else {
            throw APIError.input(operation, "message is a required field and must be an object")
        }
        try MessageRoutes.validate(input, operation: operation)
        var replaced = JSONObject(input.members.filter { !MessageRoutes.serverOwnedKeys.contains($0.key) }.map { ($0.key, $0.value) })
        if input["pinned"] == nil {
            // An edit that does not mention the pin (most clients send text and attachments) leaves it as it is.
            for key in MessagePins.senderKeys { replaced[key] = data[key] }
        }
        return replaced
    }

    /// Whether an edit sets the text anew, so its link preview is redone: a full update always
    /// does; a partial one when it changes the text (pinning a message fetches nothing).
    static func rewritesText(partial: Bool, _ before: JSONObject, _ after: JSONObject) -> Bool {
        !partial || before["text"]?.stringValue != after["text"]?.stringValue
    }

    /// The rendered message and its `message.updated` event, logged for `/sync`.
    static func updated(
        _ message: StoredMessage, viewer: String?, renderer: Renderer, at now: Date, in db: Database
    ) throws -> (JSONObject, PendingEvent) {
        try announce(message, as: "message.updated", viewer: viewer, renderer: renderer, at: now, in: db)
    }

    /// The rendered message and its event of `type` (`message_id`, `message`, and as `user` the
    /// message's author unless `actor` is given, with `extra` fields), logged for `/sync`.
    static func announce(
        _ message: StoredMessage, as type: String, by actor: RawJSON? = nil, extra: JSONObject = [:], viewer: String?, renderer: Renderer,
        at now: Date, in db: Database
    ) throws -> (JSONObject, PendingEvent) {
        let rendered = try renderer.messages([message], viewer: viewer, in: db)[0]
        var event = DevServerState.event(type, message.cid, at: now)
        event["message_id"] = .string(message.id)
        event["message"] = .object(rendered)
        event["user"] = actor ?? rendered["user"]
        for (key, value) in extra { event[key] = value }
        try DevServerState.log(db, event, cid: message.cid, at: now)
        return (rendered, PendingEvent(cid: message.cid, event: event))
    }
}
