import ChatModels
import Foundation
import GRDB
import Hummingbird

extension MessageRoutes {
    /// The most messages one `GetManyMessages` call reads.
    static let manyMessagesLimit = 100

    /// `GET /channels/{type}/{id}/messages?ids=a,b,c`: the channel's messages with these ids, in
    /// the order asked, links freshly signed; ids of no message in the channel are left out.
    func manyMessages(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "GetManyMessages"
        let principal = try await state.authenticate(request)
        let cid = try state.channelId(context, operation: operation)
        let ids = (request.query("ids") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !ids.isEmpty else { throw APIError.input(operation, "ids is required: the message ids to read, comma separated") }
        guard ids.count <= Self.manyMessagesLimit else {
            throw APIError.input(operation, "ids names \(ids.count) messages; at most \(Self.manyMessagesLimit) are read at once")
        }
        let renderer = await state.renderer(for: request)
        let messages = try await state.store.read { db -> [JSONObject] in
            _ = try DevServerState.requireChannel(db, cid, operation: operation)
            try DevServerState.requireAccess(db, cid, principal, operation: operation)
            var seen = Set<String>()
            let found = try ids.compactMap { id -> StoredMessage? in
                guard seen.insert(id).inserted, let message = try MessagesTable.fetch(db, id), message.cid == cid else { return nil }
                return message
            }
            return try renderer.messages(found, viewer: principal.userId, in: db)
        }
        return JSONReply(["messages": .array(messages.map(RawJSON.object))])
    }
}
