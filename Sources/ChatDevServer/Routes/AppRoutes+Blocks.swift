import ChatModels
import Foundation
import GRDB
import Hummingbird

extension AppRoutes {
    /// `POST /users/block` with `blocked_user_id` (and `user_id` with a server token): the
    /// user's one-to-one channels with the blocked user are hidden for it, the blocked user can
    /// no longer post in them (403, 17) nor add the user to a channel (skipped), and its
    /// messages no longer count as unread for the user. Group channels are unaffected.
    func block(_ request: Request) async throws -> JSONReply {
        let operation = "BlockUsers"
        let (userId, blocked) = try await blockPair(request, operation)
        let now = state.clock.now()
        let created = try await state.store.write { db -> Date in
            guard try UsersTable.fetch(db, blocked) != nil else { throw APIError.notFound(operation, "user \(blocked) does not exist") }
            try UsersTable.ensure(db, userId, now: now)
            let created = try BlocksTable.store(db, user: userId, blocks: blocked, at: now)
            for cid in try BlocksTable.oneToOneChannels(of: userId, with: blocked, db) { try ChannelsTable.setHidden(db, cid, userId, true) }
            return created
        }
        return JSONReply(
            ["blocked_by_user_id": .string(userId), "blocked_user_id": .string(blocked), "created_at": .string(RFC3339.string(from: created))],
            status: .created)
    }

    /// `POST /users/unblock` with `blocked_user_id` (and `user_id` with a server token): ends
    /// the block. Lifting a block that is not there succeeds, as lifting a ban does; the
    /// channels it hid stay hidden until shown or a new message arrives.
    func unblock(_ request: Request) async throws -> JSONReply {
        let operation = "UnblockUsers"
        let (userId, blocked) = try await blockPair(request, operation)
        _ = try await state.store.write { db in try BlocksTable.remove(db, user: userId, blocked: blocked) }
        return JSONReply([:], status: .created)
    }

    /// `GET /users/block?user_id=` (a user token reads its own): whom the user blocked, oldest first.
    func blockedUsers(_ request: Request) async throws -> JSONReply {
        let operation = "GetBlockedUsers"
        let principal = try await state.authenticate(request)
        let userId = try state.actingUser(principal, query: request, operation: operation)
        let renderer = await state.renderer(for: request)
        let blocks = try await state.store.read { db -> [RawJSON] in
            let entries = try BlocksTable.blocked(by: userId, db)
            let users = try UsersTable.fetch(db, ids: entries.map(\.userId) + [userId])
            return entries.map { entry in
                .object([
                    "user_id": .string(userId), "user": .object(renderer.user(id: userId, from: users)),
                    "blocked_user_id": .string(entry.userId), "blocked_user": .object(renderer.user(id: entry.userId, from: users)),
                    "created_at": .string(RFC3339.string(from: entry.since)),
                ])
            }
        }
        return JSONReply(["blocks": .array(blocks)])
    }

    /// Who blocks (the token's user, or `user_id` with a server token) and whom
    /// (`blocked_user_id`, someone else) in a block or unblock request.
    private func blockPair(_ request: Request, _ operation: String) async throws -> (userId: String, blocked: String) {
        let principal = try await state.authenticate(request)
        let body = try await state.jsonBody(request, operation: operation)
        let userId = try state.actingUser(principal, body, operation: operation)
        guard let blocked = body["blocked_user_id"]?.stringValue, !blocked.isEmpty else {
            throw APIError.input(operation, "blocked_user_id is required")
        }
        guard blocked != userId else { throw APIError.input(operation, "user \(userId) cannot block themselves") }
        return (userId, blocked)
    }
}

extension DevServerState {
    /// Fails when `userId` posts in a one-to-one channel whose other member blocked it.
    static func requireNotBlocked(_ db: Database, _ cid: ChannelId, _ userId: String, operation: String) throws {
        // On every send: most authors are blocked by no one, which one indexed look-up tells,
        // without reading the channel's members.
        guard try BlocksTable.isBlocked(db, userId), let other = try BlocksTable.otherMember(ofOneToOne: cid, besides: userId, db),
            try BlocksTable.isBlocking(db, other, userId)
        else { return }
        throw APIError.forbidden(operation, "user \(other) blocked user \(userId), who can no longer post in their one-to-one channel \(cid.rawValue)")
    }
}
