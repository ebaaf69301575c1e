import ChatModels
import Foundation
import GRDB
import Hummingbird

extension MessageRoutes {
    /// `POST /messages/{id}/undelete` with `undeleted_by` (server tokens only, as on the
    /// service): gives a soft-deleted message back its type, text and attachments, and tells
    /// the channel with `message.undeleted`. A hard-deleted message is gone (404); one that
    /// left with its channel's truncation stays hidden by it, so it is refused rather than
    /// restored to no one.
    func undelete(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "UndeleteMessage"
        try await state.requireServer(request, operation, "messages can only be undeleted")
        let id = context.parameters.get("messageId") ?? ""
        let body = try await state.jsonBody(request, operation: operation)
        guard let restorer = body["undeleted_by"]?.stringValue, !restorer.isEmpty else {
            throw APIError.input(operation, "undeleted_by is required: the id of the user who restores the message")
        }
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let (rendered, event) = try await state.store.write { db -> (JSONObject, PendingEvent) in
            var message = try DevServerState.requireMessage(db, id, operation: operation)
            guard message.deletedAt != nil else {
                throw APIError.input(operation, "message \(id) is not deleted, so there is nothing to undelete")
            }
            let channel = try DevServerState.requireChannel(db, message.cid, operation: operation)
            if let truncatedSeq = channel.truncatedSeq, let seq = try MessagesTable.sequence(db, id), seq <= truncatedSeq {
                let when = channel.truncatedAt.map { " at \(RFC3339.string(from: $0))" } ?? ""
                throw APIError.input(
                    operation, "message \(id) was removed when channel \(message.cid.rawValue) was truncated\(when); truncated messages cannot be undeleted")
            }
            guard let user = try UsersTable.fetch(db, restorer) else {
                throw APIError.input(operation, "undeleted_by names user \(restorer), who does not exist")
            }
            message.restore(at: now)
            try MessagesTable.update(db, message)
            return try MessageRoutes.announce(
                message, as: "message.undeleted", by: .object(renderer.user(user)), viewer: nil, renderer: renderer, at: now, in: db)
        }
        await state.publish([event])
        return JSONReply(["message": .object(rendered)])
    }
}

extension StoredMessage {
    /// Gives a soft-deleted message back the type it had (regular, reply or system).
    mutating func restore(at now: Date) {
        type = typeBeforeDelete ?? (parentId == nil ? "regular" : "reply")
        typeBeforeDelete = nil
        deletedAt = nil
        updatedAt = now
    }
}
