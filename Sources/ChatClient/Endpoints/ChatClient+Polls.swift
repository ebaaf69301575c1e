import ChatModels
import Foundation

extension ChatClient {
    /// Creates a poll (`POST /polls`), to be sent with a message by the same user
    /// (``OutgoingMessage/pollId``, or ``ChatChannel/sendPoll(name:options:text:description:isAnonymous:isSingleChoice:maximumVotes:allowsAnswers:as:)``
    /// in one go). `isSingleChoice` makes a new vote replace the voter's other one;
    /// `maximumVotes` (1 to 10) limits a voter's votes otherwise; `allowsAnswers` lets voters
    /// answer in their own words; an anonymous poll's votes do not show their voters.
    public func createPoll(
        name: String, options: [String], description: String? = nil, isAnonymous: Bool = false, isSingleChoice: Bool = false,
        maximumVotes: Int? = nil, allowsAnswers: Bool = false, extraData: [String: RawJSON] = [:], as userId: String? = nil
    ) async throws -> Poll {
        let operation = "CreatePoll"
        try Self.checkCustomFields(extraData, operation: operation)
        var body = JSONObject(extraData)
        body["name"] = .string(name)
        body["options"] = .array(options.map { ["text": .string($0)] })
        if let description { body["description"] = .string(description) }
        if isAnonymous { body["voting_visibility"] = "anonymous" }
        if isSingleChoice { body["enforce_unique_vote"] = true }
        if let maximumVotes { body["max_votes_allowed"] = .number(JSONNumber(maximumVotes)) }
        if allowsAnswers { body["allow_answers"] = true }
        if let user = try actingUser(userId, operation: operation) { body["user_id"] = .string(user) }
        return try await poll(in: perform(.post("/polls", body, operation: operation)), operation: operation)
    }

    /// A poll as it stands, with the votes of `userId` (the configured user when nil) in
    /// ``Poll/ownVotes`` (`GET /polls/{id}`).
    public func poll(_ pollId: String, as userId: String? = nil) async throws -> Poll {
        let operation = "GetPoll"
        let query = try actingUser(userId, operation: operation).map { [("user_id", $0)] } ?? []
        return try await poll(in: perform(.get("/polls/\(Endpoint.escape(pollId))", query: query, operation: operation)), operation: operation)
    }

    /// Changes a poll's settings or custom fields (`PATCH /polls/{id}`, by its creator or
    /// with the API secret): `set` adds or replaces, `unset` removes.
    public func updatePoll(_ pollId: String, set: JSONObject = [:], unset: [String] = [], as userId: String? = nil) async throws -> Poll {
        let operation = "UpdatePollPartial"
        var body: JSONObject = ["set": .object(set), "unset": .array(unset.map(RawJSON.string))]
        if let user = try actingUser(userId, operation: operation) { body["user_id"] = .string(user) }
        return try await poll(in: perform(.patch("/polls/\(Endpoint.escape(pollId))", body, operation: operation)), operation: operation)
    }

    /// Closes a poll for voting: `poll.closed` reaches the channels of the messages carrying it.
    @discardableResult
    public func closePoll(_ pollId: String, as userId: String? = nil) async throws -> Poll {
        try await updatePoll(pollId, set: ["is_closed": true], as: userId)
    }

    /// Deletes a poll with its votes (`DELETE /polls/{id}`); its message stays, without it.
    public func deletePoll(_ pollId: String) async throws {
        _ = try await perform(.delete("/polls/\(Endpoint.escape(pollId))", operation: "DeletePoll"))
    }

    /// Votes for `optionId` of the poll `messageId` carries, as `userId` (the configured user
    /// when nil): a member of the message's channel. The same vote again changes nothing; on a
    /// single-choice poll it replaces the voter's other vote.
    @discardableResult
    public func castPollVote(on messageId: String, poll pollId: String, option optionId: String, as userId: String? = nil) async throws
        -> PollVote
    {
        try await vote(on: messageId, poll: pollId, ["option_id": .string(optionId)], as: userId, operation: "CastPollVote")
    }

    /// Answers the poll `messageId` carries in the voter's own words (a poll that allows
    /// answers); a second answer replaces the first.
    @discardableResult
    public func answerPoll(on messageId: String, poll pollId: String, text: String, as userId: String? = nil) async throws -> PollVote {
        try await vote(on: messageId, poll: pollId, ["answer_text": .string(text)], as: userId, operation: "CastPollVote")
    }

    /// Takes back a vote or answer of `userId` (the configured user when nil).
    @discardableResult
    public func removePollVote(_ voteId: String, on messageId: String, poll pollId: String, as userId: String? = nil) async throws
        -> PollVote
    {
        let operation = "RemovePollVote"
        let query = try actingUser(userId, operation: operation).map { [("user_id", $0)] } ?? []
        let path = "/messages/\(Endpoint.escape(messageId))/polls/\(Endpoint.escape(pollId))/vote/\(Endpoint.escape(voteId))"
        return try await pollVote(in: perform(.delete(path, query: query, operation: operation)), operation: operation)
    }

    /// A poll's votes, newest first: those for `optionId`, or by `userId`, or only answers
    /// (`POST /polls/{id}/votes`); an anonymous poll's without their voters.
    public func pollVotes(_ pollId: String, optionId: String? = nil, userId: String? = nil, answers: Bool? = nil, limit: Int = 25)
        async throws -> [PollVote]
    {
        let operation = "QueryPollVotes"
        var filter = JSONObject()
        if let optionId { filter["option_id"] = .string(optionId) }
        if let userId { filter["user_id"] = .string(userId) }
        if let answers { filter["is_answer"] = .bool(answers) }
        let body: JSONObject = ["filter": .object(filter), "limit": .number(JSONNumber(limit))]
        let response = try await perform(.post("/polls/\(Endpoint.escape(pollId))/votes", body, idempotent: true, operation: operation))
        return try PollVote.list(response["votes"], operation: operation)
    }

    private func vote(on messageId: String, poll pollId: String, _ ballot: JSONObject, as userId: String?, operation: String) async throws
        -> PollVote
    {
        var body: JSONObject = ["vote": .object(ballot)]
        if let user = try actingUser(userId, operation: operation) { body["user_id"] = .string(user) }
        let path = "/messages/\(Endpoint.escape(messageId))/polls/\(Endpoint.escape(pollId))/vote"
        return try await pollVote(in: perform(.post(path, body, idempotent: true, operation: operation)), operation: operation)
    }

    private func poll(in response: JSONObject, operation: String) throws -> Poll {
        guard let poll = response["poll"] else { throw ChatClientError(code: .invalidResponse, message: "\(operation) answered without a poll") }
        return try Poll(json: poll, operation: operation)
    }

    private func pollVote(in response: JSONObject, operation: String) throws -> PollVote {
        guard let vote = response["vote"] else { throw ChatClientError(code: .invalidResponse, message: "\(operation) answered without a vote") }
        return try PollVote(json: vote, operation: operation)
    }
}

extension ChatChannel {
    /// Creates a poll as `userId` (the configured user when nil) and sends it in this channel
    /// with `text`; returns the message, whose `Message.poll` is the poll.
    @discardableResult
    public func sendPoll(
        name: String, options: [String], text: String = "", description: String? = nil, isAnonymous: Bool = false,
        isSingleChoice: Bool = false, maximumVotes: Int? = nil, allowsAnswers: Bool = false, as userId: String? = nil
    ) async throws -> Message {
        let poll = try await client.createPoll(
            name: name, options: options, description: description, isAnonymous: isAnonymous, isSingleChoice: isSingleChoice,
            maximumVotes: maximumVotes, allowsAnswers: allowsAnswers, as: userId)
        return try await client.sendMessage(OutgoingMessage(text: text.isEmpty ? name : text, pollId: poll.id), to: cid, as: userId)
    }
}
