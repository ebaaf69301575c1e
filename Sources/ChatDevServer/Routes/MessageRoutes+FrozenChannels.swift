import ChatModels
import Foundation
import GRDB
import Hummingbird

extension MessageRoutes {
    /// The hosted service's words for a message sent to a frozen channel.
    static let frozenChannelText = "Sorry, this channel has been frozen by the admin"

    /// The answer to a user's message in a frozen channel, or nil when it may be posted.
    ///
    /// Like the hosted service, the refusal is not an HTTP error: the message comes back with
    /// type `error` and the reason as its text, and is stored nowhere and sent to no one.
    /// Server-side requests skip permission checks there, so a server token still posts.
    func frozenChannelRefusal(
        _ cid: ChannelId, _ principal: Principal, author: String, id: String, request: Request, operation: String
    ) async throws -> JSONReply? {
        guard principal.userId != nil else { return nil }
        let renderer = await state.renderer(for: request)
        let now = state.clock.now()
        return try await state.store.read { db -> JSONReply? in
            guard let channel = try ChannelsTable.fetch(db, cid), channel.frozen else { return nil }
            try DevServerState.requireAccess(db, cid, principal, operation: operation)
            let refused = StoredMessage(
                id: id, cid: cid, userId: author, parentId: nil, type: "error", data: ["text": .string(Self.frozenChannelText)],
                createdAt: now, updatedAt: now)
            let rendered = try renderer.messages([refused], viewer: principal.userId, in: db)[0]
            return JSONReply(["message": .object(rendered)], status: .created)
        }
    }
}

extension DevServerState {
    /// Fails when `cid` is frozen and a user token tries to change its reactions (HTTP 403, as
    /// the hosted service answers).
    static func requireNotFrozen(_ db: Database, _ cid: ChannelId, _ principal: Principal, operation: String) throws {
        guard principal.userId != nil, try ChannelsTable.fetch(db, cid)?.frozen == true else { return }
        throw APIError.forbidden(operation, "channel \(cid.rawValue) is frozen: reactions cannot be added or removed")
    }
}
