import ChatModels
import Foundation
import GRDB
import Hummingbird

extension MessageRoutes {
    /// `GET /channels/{type}/{id}/pinned_messages?payload={"limit", "sort", "pinned_at_before", …}`:
    /// the channel's pins in force, by when they were pinned (the latest first unless `sort` says
    /// `[{"field": "pinned_at", "direction": 1}]`), paged by `pinned_at_before`/`_after` (and
    /// their `_or_equal` forms).
    func pinnedMessages(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "GetPinnedMessages"
        let principal = try await state.authenticate(request)
        let cid = try state.channelId(context, operation: operation)
        let payload = try state.payloadQuery(request, operation: operation)
        let limit = try DevServerState.pageParameter(payload["limit"], "limit", default: 10, range: 1...100, operation: operation)
        let sort = try DevServerState.sortKeys(payload["sort"], fields: ["pinned_at"], operation: operation)
        var bounds = MessagesTable.PinBounds()
        for (key, keyPath) in [
            ("pinned_at_before", \MessagesTable.PinBounds.before), ("pinned_at_before_or_equal", \.beforeOrEqual),
            ("pinned_at_after", \.after), ("pinned_at_after_or_equal", \.afterOrEqual),
        ] {
            guard let value = payload[key], !value.isNull else { continue }
            guard let text = value.stringValue, let date = RFC3339.date(from: text) else {
                throw APIError.input(operation, "\(key) must be an RFC 3339 timestamp such as 2026-01-01T00:00:00Z")
            }
            bounds[keyPath: keyPath] = date
        }
        let renderer = await state.renderer(for: request)
        let newestFirst = sort.first?.ascending != true
        let messages = try await state.store.read { [bounds] db -> [JSONObject] in
            _ = try DevServerState.requireChannel(db, cid, operation: operation)
            try DevServerState.requireAccess(db, cid, principal, operation: operation)
            let pinned = try MessagesTable.pinned(db, cid, at: renderer.now, limit: limit, newestFirst: newestFirst, within: bounds)
            return try renderer.messages(pinned, viewer: principal.userId, in: db)
        }
        return JSONReply(["messages": .array(messages.map(RawJSON.object))])
    }
}
