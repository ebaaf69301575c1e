import ChatModels
import Foundation
import GRDB
import Hummingbird

/// Polls: created on their own (`POST /polls`), sent with a message (`poll_id`), voted on
/// through that message by the channel's members, updated, closed and deleted by whoever
/// created them. Every change reaches the channels of the messages that carry the poll as
/// `poll.vote_casted`, `poll.vote_changed`, `poll.vote_removed`, `poll.updated`, `poll.closed`
/// or `poll.deleted`, with the poll and the message.
struct PollRoutes {
    let state: DevServerState

    /// The settings a poll has besides its options; the rest of what a client sends is custom.
    static let flags = ["enforce_unique_vote", "allow_user_suggested_options", "allow_answers", "is_closed"]
    /// What the server writes into a poll: never taken from a request.
    static let serverKeys: Set<String> = [
        "id", "vote_count", "vote_counts_by_option", "latest_votes_by_option", "answers_count", "latest_answers", "own_votes",
        "created_by_id", "created_by", "created_at", "updated_at", "user_id", "user",
    ]

    func register(on router: Router<DevRequestContext>) {
        router.post("/polls") { request, _ in try await createPoll(request) }
        router.get("/polls/:pollId") { request, context in try await poll(request, context) }
        router.patch("/polls/:pollId") { request, context in try await updatePoll(request, context) }
        router.delete("/polls/:pollId") { request, context in try await deletePoll(request, context) }
        router.post("/polls/:pollId/votes") { request, context in try await queryVotes(request, context) }
        router.post("/messages/:messageId/polls/:pollId/vote") { request, context in try await castVote(request, context) }
        router.delete("/messages/:messageId/polls/:pollId/vote/:voteId") { request, context in try await removeVote(request, context) }
    }

    /// `POST /polls` with `name`, `options` (`[{"text": …}]`, custom fields kept), `description`,
    /// `voting_visibility` (`public` or `anonymous`), `enforce_unique_vote`, `max_votes_allowed`
    /// (1 to 10), `allow_answers`, `allow_user_suggested_options`, `is_closed`, custom fields,
    /// and `user_id` with a server token: the poll, to be sent with a message by its creator.
    func createPoll(_ request: Request) async throws -> JSONReply {
        let operation = "CreatePoll"
        let principal = try await state.authenticate(request)
        let body = try await state.jsonBody(request, operation: operation)
        let creator = try state.actingUser(principal, body, operation: operation)
        var data = JSONObject(body.members.filter { !Self.serverKeys.contains($0.key) }.map { ($0.key, $0.value) })
        data["options"] = .array(
            try Self.options(body["options"], operation: operation).map { option in
                var option = option
                option["id"] = .string(UUID().uuidString.lowercased())
                return .object(option)
            })
        try Self.validate(data, operation: operation)
        let id = body["id"]?.stringValue ?? UUID().uuidString.lowercased()
        let now = state.clock.now()
        let poll = StoredPoll(
            id: id, data: data, createdBy: creator, isClosed: data["is_closed"]?.boolValue ?? false, createdAt: now, updatedAt: now)
        let renderer = await state.renderer(for: request)
        let rendered = try await state.store.write { db -> JSONObject in
            try UsersTable.ensure(db, creator, now: now)
            guard try PollsTable.fetch(db, id) == nil else { throw APIError.input(operation, "a poll with id \(id) already exists") }
            try PollsTable.insert(db, poll)
            return try renderer.poll(id, viewer: creator, in: db) ?? [:]
        }
        return JSONReply(["poll": .object(rendered)], status: .created)
    }

    /// `GET /polls/{id}?user_id=`: the poll, with the votes of the user (a user token's own).
    func poll(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "GetPoll"
        let principal = try await state.authenticate(request)
        let pollId = context.parameters.get("pollId") ?? ""
        let viewer = principal.userId ?? request.query("user_id")
        let renderer = await state.renderer(for: request)
        let rendered = try await state.store.read { db in
            guard let poll = try renderer.poll(pollId, viewer: viewer, in: db) else { throw Self.noPoll(pollId, operation) }
            return poll
        }
        return JSONReply(["poll": .object(rendered)])
    }

    /// `PATCH /polls/{id}` with `set` and `unset` (by its creator, or with a server token):
    /// changes the poll's settings and custom fields; `set: {"is_closed": true}` closes it for
    /// voting. `poll.closed` when it closes, else `poll.updated`, in the channels carrying it.
    func updatePoll(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "UpdatePollPartial"
        let principal = try await state.authenticate(request)
        let body = try await state.jsonBody(request, operation: operation)
        let pollId = context.parameters.get("pollId") ?? ""
        let set = body["set"]?.objectValue ?? [:]
        let unset = try (body["unset"]?.arrayValue ?? []).map { key in
            guard let key = key.stringValue else { throw APIError.input(operation, "unset must be a list of field names") }
            return key
        }
        guard !set.isEmpty || !unset.isEmpty else { throw APIError.input(operation, "set or unset is required") }
        for key in Array(set.keys) + unset where Self.serverKeys.contains(key) || key == "options" {
            throw APIError.input(operation, "\(key) cannot be changed with a partial update")
        }
        if unset.contains("name") { throw APIError.input(operation, "name cannot be unset: a poll needs one") }
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let (rendered, events) = try await state.store.write { db -> (JSONObject, [PendingEvent]) in
            var poll = try Self.requirePoll(db, pollId, operation: operation)
            try Self.requireOwner(poll, principal, operation: operation)
            for key in unset { poll.data[key] = nil }
            for (key, value) in set { poll.data[key] = value }
            try Self.validate(poll.data, operation: operation)
            let closing = !poll.isClosed && poll.data["is_closed"]?.boolValue == true
            poll.isClosed = poll.data["is_closed"]?.boolValue ?? false
            poll.updatedAt = now
            try PollsTable.update(db, poll)
            let events = try Self.events(closing ? "poll.closed" : "poll.updated", of: poll, renderer: renderer, at: now, db)
            return (try renderer.poll(pollId, viewer: principal.userId, in: db) ?? [:], events)
        }
        await state.publish(events)
        return JSONReply(["poll": .object(rendered)])
    }

    /// `DELETE /polls/{id}` (by its creator, or with a server token): the poll and its votes
    /// go; the messages that carried it no longer show it. `poll.deleted` in their channels.
    func deletePoll(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "DeletePoll"
        let principal = try await state.authenticate(request)
        let pollId = context.parameters.get("pollId") ?? ""
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let events = try await state.store.write { db -> [PendingEvent] in
            let poll = try Self.requirePoll(db, pollId, operation: operation)
            try Self.requireOwner(poll, principal, operation: operation)
            let events = try Self.events("poll.deleted", of: poll, renderer: renderer, at: now, db)
            try PollsTable.delete(db, pollId)
            return events
        }
        await state.publish(events)
        return JSONReply()
    }

    /// `POST /messages/{id}/polls/{poll}/vote` with `vote` (`{"option_id": …}` or, where the poll
    /// takes answers, `{"answer_text": …}`) and `user_id` with a server token: a member's vote on
    /// the poll the message carries. A vote on the option the member already chose changes
    /// nothing; on a single-choice poll (`enforce_unique_vote`) a vote replaces the member's
    /// other one, as a new answer replaces the member's answer (`poll.vote_changed`); otherwise
    /// it is added (`poll.vote_casted`), up to `max_votes_allowed`.
    func castVote(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "CastPollVote"
        let principal = try await state.authenticate(request)
        let body = try await state.jsonBody(request, operation: operation)
        let voter = try state.actingUser(principal, body, operation: operation)
        let (messageId, pollId) = (context.parameters.get("messageId") ?? "", context.parameters.get("pollId") ?? "")
        guard let ballot = body["vote"]?.objectValue else {
            throw APIError.input(operation, "vote is required: {\"option_id\": …} or {\"answer_text\": …}")
        }
        let optionId = ballot["option_id"]?.stringValue
        let answer = ballot["answer_text"]?.stringValue
        guard (optionId == nil) != (answer == nil) else { throw APIError.input(operation, "a vote has either option_id or answer_text") }
        if let answer, answer.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw APIError.input(operation, "answer_text must not be empty")
        }
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let (rendered, events) = try await state.store.write { db -> (JSONObject, [PendingEvent]) in
            let (poll, message) = try Self.requireOpenPoll(pollId, on: messageId, db, operation: operation)
            _ = try DevServerState.requireMember(db, message.cid, voter, operation: operation)
            let mine = try PollsTable.votes(db, pollId: pollId).filter { $0.userId == voter }
            var vote = StoredPollVote(
                id: UUID().uuidString.lowercased(), pollId: pollId, messageId: messageId, userId: voter, optionId: optionId,
                answerText: answer, createdAt: now, updatedAt: now)
            var replaced: StoredPollVote?
            if answer != nil {
                replaced = mine.first(where: \.isAnswer)
                guard poll.allowsAnswers else { throw APIError.input(operation, "poll \(pollId) does not take answers") }
            } else if let optionId {
                guard poll.optionIds.contains(optionId) else { throw APIError.input(operation, "poll \(pollId) has no option \(optionId)") }
                let optionVotes = mine.filter { !$0.isAnswer }
                if let same = optionVotes.first(where: { $0.optionId == optionId }) {
                    return (renderer.vote(same, users: try UsersTable.fetch(db, ids: [voter])), [])
                }
                if poll.enforcesUniqueVote {
                    replaced = optionVotes.first
                } else if let limit = poll.maximumVotes, optionVotes.count >= limit {
                    throw APIError.input(
                        operation, "user \(voter) already has \(optionVotes.count) of the \(limit) votes poll \(pollId) allows; remove one first")
                }
            }
            if let replaced {
                vote.id = replaced.id
                vote.createdAt = replaced.createdAt
            }
            try PollsTable.upsertVote(db, vote)
            let users = try UsersTable.fetch(db, ids: [voter])
            let events = try Self.events(
                replaced == nil ? "poll.vote_casted" : "poll.vote_changed", of: poll, vote: vote, renderer: renderer, at: now, db)
            return (renderer.vote(vote, users: users), events)
        }
        await state.publish(events)
        return JSONReply(["vote": .object(rendered)], status: .created)
    }

    /// `DELETE /messages/{id}/polls/{poll}/vote/{vote}?user_id=`: removes the user's vote or
    /// answer (404 when the user has no such vote); `poll.vote_removed`.
    func removeVote(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "RemovePollVote"
        let principal = try await state.authenticate(request)
        let voter = try state.actingUser(principal, query: request, operation: operation)
        let (messageId, pollId) = (context.parameters.get("messageId") ?? "", context.parameters.get("pollId") ?? "")
        let voteId = context.parameters.get("voteId") ?? ""
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let (rendered, events) = try await state.store.write { db -> (JSONObject, [PendingEvent]) in
            let (poll, _) = try Self.requireOpenPoll(pollId, on: messageId, db, operation: operation)
            guard let vote = try PollsTable.vote(db, voteId), vote.pollId == pollId, vote.userId == voter else {
                throw APIError.notFound(operation, "user \(voter) has no vote \(voteId) on poll \(pollId)")
            }
            try PollsTable.deleteVote(db, voteId)
            let events = try Self.events("poll.vote_removed", of: poll, vote: vote, renderer: renderer, at: now, db)
            return (renderer.vote(vote, users: try UsersTable.fetch(db, ids: [voter])), events)
        }
        await state.publish(events)
        return JSONReply(["vote": .object(rendered)])
    }

    /// `POST /polls/{id}/votes` with `filter` on `option_id`, `user_id` (a value, `$eq` or
    /// `$in`) or `is_answer`, and `limit` (1 to 300, 25 by default): the votes, newest first;
    /// an anonymous poll's without their voters.
    func queryVotes(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "QueryPollVotes"
        _ = try await state.authenticate(request)
        let body = try await state.jsonBody(request, operation: operation)
        let pollId = context.parameters.get("pollId") ?? ""
        let limit = body["limit"]?.intValue ?? 25
        guard (1...300).contains(limit) else { throw APIError.input(operation, "limit must be between 1 and 300") }
        let filter = try PollVoteFilter(body["filter"]?.objectValue ?? [:], operation: operation)
        let renderer = await state.renderer(for: request)
        let votes = try await state.store.read { db -> [RawJSON] in
            let poll = try Self.requirePoll(db, pollId, operation: operation)
            let votes = try PollsTable.votes(db, pollId: pollId).reversed().filter(filter.accepts).prefix(limit)
            let users = try UsersTable.fetch(db, ids: votes.map(\.userId))
            let showingVoters = poll.data["voting_visibility"]?.stringValue != "anonymous"
            return votes.map { .object(renderer.vote($0, users: users, showingVoter: showingVoters)) }
        }
        return JSONReply(["votes": .array(votes)])
    }
}
