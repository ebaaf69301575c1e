import ChatLocking
import ChatModels
import Foundation
import GRDB
import Hummingbird

/// The web playground, served only in dev mode (``DevServerConfiguration/acceptsDevTokens``):
/// the page at `/`, its files under `/playground/`, and two routes a real app would have on its
/// own backend, which the page uses to become a user:
/// - `GET /playground/users`: the users there are to pick from;
/// - `POST /playground/session` `{"user_id", "name"?, "channel"?}`: a signed user token for
///   that user (created if new), and membership of `channel` (created if new) when given;
/// - `GET /playground/renderers.js`: the bots' own payload renderers, when configured.
///
/// Everything else the page does, it does as any client would: REST with the token, and the
/// WebSocket at `/connect`. Outside dev mode none of these routes exist (404), so a server
/// that checks its tokens never hands one out.
struct PlaygroundRoutes {
    let state: DevServerState
    let site: PlaygroundSite

    /// The path under `/playground/` of the bots' own renderers (``DevServerConfiguration/playgroundRenderers``).
    static let renderersName = "renderers.js"

    /// How long a token the playground gets stays valid.
    static let tokenLifetime: Duration = .seconds(24 * 3600)

    func register(on router: Router<DevRequestContext>) {
        router.get("/") { request, _ in try page("index.html", request) }
        router.get("/playground/:file") { request, context in try page(context.parameters.get("file") ?? "", request) }
        router.get("/playground/users") { _, _ in try await users() }
        router.post("/playground/session") { request, _ in try await session(request) }
    }

    private func page(_ name: String, _ request: Request) throws -> Response {
        if name == PlaygroundRoutes.renderersName, let file = state.configuration.playgroundRenderers {
            return try site.renderers(from: file, authority: request.head.authority)
        }
        guard let response = site.response(for: name, authority: request.head.authority) else {
            throw APIError.notFound("Playground", "the playground has no file \(name)")
        }
        return response
    }

    /// The users to pick from, by id, with their names.
    func users() async throws -> JSONReply {
        let users = try await state.store.read { db in try UsersTable.active(db, limit: 200) }
        let listed = users.map { user -> RawJSON in
            var entry: JSONObject = ["id": .string(user.id)]
            if let name = user.data["name"]?.stringValue { entry["name"] = .string(name) }
            return .object(entry)
        }
        return JSONReply(["users": .array(listed)])
    }

    /// A token for the user the body names, the API key to use it with, and the channel joined.
    func session(_ request: Request) async throws -> JSONReply {
        let operation = "PlaygroundSession"
        let body = try await state.jsonBody(request, operation: operation)
        guard let userId = body["user_id"]?.stringValue, PlaygroundRoutes.isValidUserId(userId) else {
            throw APIError.input(operation, "user_id must be 1 to 64 letters, digits, '@', '_' or '-', such as alice")
        }
        if let reason = state.disabledUsers.withLock({ $0[userId] }) { throw APIError(code: 17, status: .forbidden, message: reason) }
        let name = body["name"]?.stringValue.flatMap { $0.isEmpty ? nil : String($0.prefix(100)) }
        let cid = try body["channel"]?.stringValue.map { text throws(APIError) in try PlaygroundRoutes.channelId(text, operation: operation) }
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let (user, joined) = try await state.store.write { db -> (JSONObject, [PendingEvent]) in
            let stored = try name.map { try UsersTable.upsert(db, ["name": .string($0)], id: userId, now: now, replace: false) }
                ?? UsersTable.ensure(db, userId, now: now)
            guard let cid else { return (renderer.user(stored), []) }
            return (renderer.user(stored), try PlaygroundRoutes.join(db, cid, userId, renderer: renderer, at: now))
        }
        await state.publish(joined)
        let token = try await state.verifier.userToken(for: userId, lifetime: PlaygroundRoutes.tokenLifetime)
        var reply: JSONObject = ["api_key": .string(state.configuration.apiKey), "token": .string(token), "user": .object(user)]
        if let cid { reply["channel"] = .string(cid.rawValue) }
        if state.configuration.playgroundRenderers != nil { reply["renderers"] = .string("/playground/\(PlaygroundRoutes.renderersName)") }
        return JSONReply(reply, status: .created)
    }

    /// Makes `userId` a member of `cid`, creating the channel (by that user) if it is new; the
    /// events of the new membership, none when the user already was a member.
    static func join(_ db: Database, _ cid: ChannelId, _ userId: String, renderer: Renderer, at now: Date) throws -> [PendingEvent] {
        if try ChannelsTable.fetch(db, cid) == nil {
            let previous = try ChannelsTable.fetchIncludingDeleted(db, cid)
            try ChannelsTable.insert(
                db,
                StoredChannel(
                    cid: cid, data: [:], createdBy: userId, createdAt: now, updatedAt: now, frozen: false,
                    truncatedAt: previous?.truncatedAt, truncatedSeq: previous?.truncatedSeq))
        }
        guard try ChannelsTable.member(db, cid, userId) == nil else { return [] }
        return try ChannelsTable.addMembers(db, cid, [(userId, "channel_member", [:])], now: now).map { member in
            try ChannelRoutes.memberEvent("member.added", "notification.added_to_channel", cid, member, renderer: renderer, db, at: now)
        }
    }

    /// Stream's user ids: letters, digits, `@`, `_` and `-`.
    static func isValidUserId(_ id: String) -> Bool {
        (1...64).contains(id.count)
            && id.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || "@_-".unicodeScalars.contains($0) }
    }

    /// `type:id` of a channel of a type the server has.
    static func channelId(_ text: String, operation: String) throws(APIError) -> ChannelId {
        let cid: ChannelId
        do {
            cid = try ChannelId(cid: text)
        } catch {
            throw APIError.input(operation, error.message)
        }
        let types = DevServerState.knownChannelTypes
        guard types.contains(cid.type.rawValue) else {
            throw APIError.notFound(operation, "channel type \"\(cid.type.rawValue)\" does not exist; types: \(types.sorted().joined(separator: ", "))")
        }
        return cid
    }
}
