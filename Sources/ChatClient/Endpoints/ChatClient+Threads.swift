import ChatModels
import Foundation

extension ChatClient {
    /// The threads of `userId`'s channels it takes part in (the configured user when nil), the
    /// one with the latest reply first (`POST /threads`), at most `limit`, each with its latest
    /// `replyLimit` replies; only those of `cid` when given. Answers the page and the `next`
    /// to pass for the one after it (nil on the last page).
    public func queryThreads(
        in cid: ChannelId? = nil, limit: Int = 10, replyLimit: Int = 2, next: String? = nil, as userId: String? = nil
    ) async throws -> (threads: [ChatThread], next: String?) {
        var body: JSONObject = ["limit": .number(JSONNumber(limit)), "reply_limit": .number(JSONNumber(replyLimit))]
        if let cid { body["filter"] = ["channel_cid": .string(cid.rawValue)] }
        if let next { body["next"] = .string(next) }
        if let user = try actingUser(userId, operation: "QueryThreads") { body["user_id"] = .string(user) }
        let response = try await perform(.post("/threads", body, idempotent: true, operation: "QueryThreads"))
        let threads = try (response["threads"]?.arrayValue ?? []).map { try ChatThread(json: $0, operation: "QueryThreads") }
        return (threads, response["next"]?.stringValue)
    }

    /// The thread `parentId` starts, with its latest `replyLimit` replies (`GET /threads/{id}`).
    public func thread(_ parentId: String, replyLimit: Int = 2) async throws -> ChatThread {
        let response = try await perform(
            .get("/threads/\(Endpoint.escape(parentId))", query: [("reply_limit", String(replyLimit))], operation: "GetThread"))
        guard let thread = response["thread"] else {
            throw ChatClientError(code: .invalidResponse, message: "GetThread answered without a thread")
        }
        return try ChatThread(json: thread, operation: "GetThread")
    }
}
