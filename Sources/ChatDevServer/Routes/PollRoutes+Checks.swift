import ChatModels
import Foundation
import GRDB
import Hummingbird

/// What a poll request must satisfy, and the errors that say which rule it broke.
extension PollRoutes {
    /// A message may carry `pollId` when the poll exists, its author created it, and no other
    /// message carries it yet.
    static func requireSendable(_ pollId: RawJSON, by author: String, _ db: Database, operation: String) throws {
        guard let id = pollId.stringValue, !id.isEmpty else { throw APIError.input(operation, "poll_id must be a poll's id") }
        let poll = try requirePoll(db, id, operation: operation)
        guard poll.createdBy == author else {
            throw APIError.input(operation, "poll \(id) was created by \(poll.createdBy); only its creator may send it")
        }
        guard try PollsTable.messages(carrying: id, db).isEmpty else { throw APIError.input(operation, "poll \(id) was already sent in a message") }
    }

    static func requirePoll(_ db: Database, _ id: String, operation: String) throws -> StoredPoll {
        guard let poll = try PollsTable.fetch(db, id) else { throw noPoll(id, operation) }
        return poll
    }

    static func noPoll(_ id: String, _ operation: String) -> APIError { APIError.notFound(operation, "poll \(id) does not exist") }

    /// The poll `pollId`, open for voting, and the message `messageId` that carries it.
    static func requireOpenPoll(_ pollId: String, on messageId: String, _ db: Database, operation: String) throws
        -> (StoredPoll, StoredMessage)
    {
        let message = try DevServerState.requireMessage(db, messageId, operation: operation)
        guard message.data["poll_id"]?.stringValue == pollId, message.deletedAt == nil else {
            throw APIError.input(operation, "message \(messageId) does not carry poll \(pollId)")
        }
        let poll = try requirePoll(db, pollId, operation: operation)
        guard !poll.isClosed else { throw APIError.input(operation, "poll \(pollId) is closed for voting") }
        return (poll, message)
    }

    static func requireOwner(_ poll: StoredPoll, _ principal: Principal, operation: String) throws {
        if let userId = principal.userId, userId != poll.createdBy {
            throw APIError.forbidden(operation, "poll \(poll.id) was created by \(poll.createdBy); only its creator may change it")
        }
    }

    /// The options of a new poll: objects with a `text` each, no two alike.
    static func options(_ value: RawJSON?, operation: String) throws -> [JSONObject] {
        guard let value, !value.isNull else { return [] }
        guard let elements = value.arrayValue else { throw APIError.input(operation, "options must be a list of {\"text\": …}") }
        var texts: Set<String> = []
        return try elements.enumerated().map { index, element in
            guard var option = element.objectValue, let text = option["text"]?.stringValue,
                !text.trimmingCharacters(in: .whitespaces).isEmpty
            else { throw APIError.input(operation, "options[\(index)] needs a text") }
            guard texts.insert(text).inserted else { throw APIError.input(operation, "options[\(index)] repeats \"\(text)\"") }
            option["id"] = nil
            return option
        }
    }

    /// A poll's settings, whole: what the service refuses.
    static func validate(_ data: JSONObject, operation: String) throws {
        guard let name = data["name"]?.stringValue, !name.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw APIError.input(operation, "name is required")
        }
        if let description = data["description"], !description.isNull, description.stringValue == nil {
            throw APIError.input(operation, "description must be a string")
        }
        if let visibility = data["voting_visibility"], !visibility.isNull, !["public", "anonymous"].contains(visibility.stringValue ?? "") {
            throw APIError.input(operation, "voting_visibility must be public or anonymous")
        }
        for key in flags {
            if let value = data[key], !value.isNull, value.boolValue == nil { throw APIError.input(operation, "\(key) must be true or false") }
        }
        if let limit = data["max_votes_allowed"], !limit.isNull {
            guard let count = limit.intValue, (1...10).contains(count) else {
                throw APIError.input(operation, "max_votes_allowed must be between 1 and 10, or null for no limit")
            }
            if data["enforce_unique_vote"]?.boolValue == true, count > 1 {
                throw APIError.input(operation, "enforce_unique_vote allows one vote each; max_votes_allowed cannot be \(count)")
            }
        }
    }
}
