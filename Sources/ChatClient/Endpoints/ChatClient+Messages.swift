import ChatModels
import Foundation

extension ChatClient {
    /// Sends a message. Attachments that are local files are checked against the app's upload
    /// rules, uploaded (with `progress` from 0 to 1 over all of them), and then the message is
    /// sent with their links. The message id makes a retried send idempotent: an "already
    /// exists" answer returns the stored message.
    @discardableResult
    public func sendMessage(
        _ message: OutgoingMessage, to cid: ChannelId, as userId: String? = nil, progress: (@Sendable (Double) -> Void)? = nil
    ) async throws -> Message {
        let author = try actingUser(userId, operation: "SendMessage")
        try Self.checkCustomFields(message.extraData, operation: "SendMessage")
        let attachments = try await uploadLocalFiles(of: message, in: cid, as: author, progress: progress)
        var object = JSONObject(message.extraData)
        object["id"] = .string(message.id)
        object["text"] = .string(message.text)
        if !attachments.isEmpty { object["attachments"] = .array(attachments.map(RawJSON.object)) }
        if let parentId = message.parentId { object["parent_id"] = .string(parentId) }
        if let quoted = message.quotedMessageId { object["quoted_message_id"] = .string(quoted) }
        if let showInChannel = message.showInChannel { object["show_in_channel"] = .bool(showInChannel) }
        if !message.mentionedUserIds.isEmpty { object["mentioned_users"] = .array(message.mentionedUserIds.map(RawJSON.string)) }
        if message.isSilent { object["silent"] = true }
        if message.isPinned {
            object["pinned"] = true
            if let expiry = message.pinExpires { object["pin_expires"] = .string(RFC3339.string(from: expiry)) }
        }
        if let pollId = message.pollId { object["poll_id"] = .string(pollId) }
        if let location = message.sharedLocation { object["shared_location"] = location.json }
        if let author { object["user_id"] = .string(author) }
        var body: JSONObject = ["message": .object(object)]
        if message.skipPush { body["skip_push"] = true }
        if message.skipEnrichURL { body["skip_enrich_url"] = true }
        do {
            let response = try await perform(
                .post(Endpoint.channelPath(cid) + "/message", body, idempotent: true, operation: "SendMessage"))
            let sent = try ChatClient.message(in: response, operation: "SendMessage")
            // The service refuses some messages (a frozen channel) by answering them back as type
            // `error` with the reason as their text: nothing was posted.
            guard sent.type != .error else {
                throw ChatClientError(
                    code: .messageRefused, message: "SendMessage: \(cid.rawValue) did not take message \(message.id): \(sent.text)",
                    httpStatus: 201)
            }
            return sent
        } catch let error as ChatClientError where error.streamCode == 4 && error.message.contains("already exists") {
            // A retry of a send that already got through: the message is there.
            return try await getMessage(message.id)
        }
    }

    /// Refuses custom fields the server owns (`moderation`, `status`, `user`, ...): the server
    /// would drop or overwrite them, and the data would be lost without a word.
    static func checkCustomFields(_ extraData: [String: RawJSON], operation: String) throws {
        let owned = extraData.keys.filter { Message.isServerOwned($0) }.sorted()
        guard owned.isEmpty else {
            throw ChatClientError(
                code: .invalidRequest,
                message: "\(operation): custom field\(owned.count == 1 ? "" : "s") \(owned.joined(separator: ", ")) \(owned.count == 1 ? "is a name" : "are names") the server uses; rename \(owned.count == 1 ? "it" : "them"), for example to \(owned[0])_data")
        }
    }

    /// A message with freshly signed attachment links (`GET /messages/{id}`).
    public func getMessage(_ id: String) async throws -> Message {
        let response = try await perform(.get("/messages/\(Endpoint.escape(id))", operation: "GetMessage"))
        return try ChatClient.message(in: response, operation: "GetMessage")
    }

    /// Several messages of a channel at once, with freshly signed attachment links
    /// (`GET /channels/{type}/{id}/messages?ids=`), in the order asked; ids of no message in the
    /// channel are left out. At most 100 ids per call.
    public func getMessages(_ ids: [String], in cid: ChannelId) async throws -> [Message] {
        let operation = "GetManyMessages"
        guard !ids.isEmpty else { return [] }
        guard ids.count <= 100 else {
            throw ChatClientError(code: .invalidRequest, message: "\(operation): \(ids.count) ids asked for; the service reads at most 100 at once")
        }
        if let bad = ids.first(where: { $0.isEmpty || $0.contains(",") }) {
            throw ChatClientError(code: .invalidRequest, message: "\(operation): \"\(bad)\" cannot be asked for: ids are sent comma separated")
        }
        let response = try await perform(.get(Endpoint.channelPath(cid) + "/messages", query: [("ids", ids.joined(separator: ","))], operation: operation))
        return try Self.models(Message.self, at: "messages", noun: "message", in: response, operation: operation)
    }

    /// Replaces a message's text, attachments and custom fields (`POST /messages/{id}`). The
    /// service redoes the preview of the text's first link unless `skipEnrichURL` is set.
    @discardableResult
    public func updateMessage(
        _ id: String, text: String, attachments: [AnyAttachmentPayload] = [], extraData: [String: RawJSON] = [:], as userId: String? = nil,
        skipEnrichURL: Bool = false
    ) async throws -> Message {
        try Self.checkCustomFields(extraData, operation: "UpdateMessage")
        var object = JSONObject(extraData)
        object["id"] = .string(id)
        object["text"] = .string(text)
        object["attachments"] = .array(try attachments.map { .object(try $0.jsonObject()) })
        if let user = try actingUser(userId, operation: "UpdateMessage") { object["user_id"] = .string(user) }
        var body: JSONObject = ["message": .object(object)]
        if skipEnrichURL { body["skip_enrich_url"] = true }
        let response = try await perform(.post("/messages/\(Endpoint.escape(id))", body, idempotent: true, operation: "UpdateMessage"))
        return try ChatClient.message(in: response, operation: "UpdateMessage")
    }

    /// Sets and removes single fields of a message (`PUT /messages/{id}`). A new text gets the
    /// preview of its first link unless `skipEnrichURL` is set.
    @discardableResult
    public func partialUpdateMessage(
        _ id: String, set: [String: RawJSON] = [:], unset: [String] = [], as userId: String? = nil, skipEnrichURL: Bool = false
    ) async throws -> Message {
        var body: JSONObject = ["set": .object(JSONObject(set)), "unset": .array(unset.map(RawJSON.string))]
        if skipEnrichURL { body["skip_enrich_url"] = true }
        if let user = try actingUser(userId, operation: "UpdateMessagePartial") { body["user"] = ["id": .string(user)] }
        let response = try await perform(
            Endpoint(method: "PUT", path: "/messages/\(Endpoint.escape(id))", body: body, isIdempotent: true, operation: "UpdateMessagePartial"))
        return try ChatClient.message(in: response, operation: "UpdateMessagePartial")
    }

    /// Deletes a message: soft (kept as `deleted`) or, with `hard`, for good.
    @discardableResult
    public func deleteMessage(_ id: String, hard: Bool = false) async throws -> Message {
        let response = try await perform(
            .delete("/messages/\(Endpoint.escape(id))", query: hard ? [("hard", "true")] : [], operation: "DeleteMessage"))
        return try ChatClient.message(in: response, operation: "DeleteMessage")
    }

    /// Restores a soft-deleted message (its type, text and attachments), as `userId` (the
    /// configured user when nil); the channel gets `message.undeleted`. Needs the API secret.
    /// A message deleted for good, or removed by truncating its channel, cannot come back.
    @discardableResult
    public func undeleteMessage(_ id: String, by userId: String? = nil) async throws -> Message {
        let operation = "UndeleteMessage"
        var body: JSONObject = [:]
        if let user = try actingUser(userId, operation: operation) { body["undeleted_by"] = .string(user) }
        let response = try await perform(.post("/messages/\(Endpoint.escape(id))/undelete", body, operation: operation))
        return try ChatClient.message(in: response, operation: operation)
    }

    /// The replies of a thread, oldest first.
    public func replies(to parentId: String, limit: Int = 100) async throws -> [Message] {
        let response = try await perform(
            .get("/messages/\(Endpoint.escape(parentId))/replies", query: [("limit", String(limit))], operation: "GetReplies"))
        return try (response["messages"]?.arrayValue ?? []).map { try Message(json: $0) }
    }

    /// Adds a reaction (`enforceUnique` replaces the user's other reactions on the message).
    @discardableResult
    public func sendReaction(
        _ type: String, to messageId: String, score: Int = 1, enforceUnique: Bool = false, extraData: [String: RawJSON] = [:],
        as userId: String? = nil
    ) async throws -> Reaction {
        var reaction = JSONObject(extraData)
        reaction["type"] = .string(type)
        reaction["score"] = .number(JSONNumber(score))
        if let user = try actingUser(userId, operation: "SendReaction") { reaction["user_id"] = .string(user) }
        let response = try await perform(
            .post(
                "/messages/\(Endpoint.escape(messageId))/reaction", ["reaction": .object(reaction), "enforce_unique": .bool(enforceUnique)],
                idempotent: true, operation: "SendReaction"))
        guard let json = response["reaction"], let decoded = try? Reaction(json: json) else {
            throw ChatClientError(code: .invalidResponse, message: "SendReaction answered without a reaction")
        }
        return decoded
    }

    /// Removes a reaction.
    public func deleteReaction(_ type: String, from messageId: String, as userId: String? = nil) async throws {
        let query = try actingUser(userId, operation: "DeleteReaction").map { [("user_id", $0)] } ?? []
        _ = try await perform(
            .delete("/messages/\(Endpoint.escape(messageId))/reaction/\(Endpoint.escape(type))", query: query, operation: "DeleteReaction"))
    }

    static func message(in response: JSONObject, operation: String) throws -> Message {
        try model(Message.self, at: "message", in: response, operation: operation)
    }

    /// The versions of message `id` that edits replaced, oldest first (`POST /messages/history`):
    /// what it said before, when and by whom each version was made.
    public func messageHistory(of id: String, limit: Int = 100) async throws -> [MessageHistoryEntry] {
        let body: JSONObject = ["filter": ["message_id": .string(id)], "limit": .number(JSONNumber(limit))]
        let response = try await perform(.post("/messages/history", body, idempotent: true, operation: "QueryMessageHistory"))
        return (response["message_history"]?.arrayValue ?? []).map(MessageHistoryEntry.init(json:))
    }
}
