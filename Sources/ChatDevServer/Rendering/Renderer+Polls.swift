import ChatModels
import Foundation
import GRDB

extension Renderer {
    /// A poll as the API answers it: its settings and options, the vote counts by option, the
    /// latest ten votes of each option and the latest answers (without voters for an anonymous
    /// poll), and `viewer`'s own votes.
    func poll(_ poll: StoredPoll, votes: [StoredPollVote], users: [String: StoredUser], viewer: String?) -> JSONObject {
        var object = poll.data
        object["id"] = .string(poll.id)
        object["description"] = poll.data["description"] ?? ""
        object["voting_visibility"] = poll.data["voting_visibility"] ?? "public"
        for (key, fallback) in [("enforce_unique_vote", false), ("allow_user_suggested_options", false), ("allow_answers", false)] {
            object[key] = poll.data[key] ?? .bool(fallback)
        }
        object["max_votes_allowed"] = poll.data["max_votes_allowed"] ?? .null
        object["is_closed"] = .bool(poll.isClosed)
        let isAnonymous = poll.data["voting_visibility"]?.stringValue == "anonymous"
        let newestFirst = votes.sorted { $0.createdAt > $1.createdAt }
        let optionVotes = newestFirst.filter { !$0.isAnswer }
        var counts = JSONObject()
        var latest = JSONObject()
        for optionId in poll.optionIds {
            let onOption = optionVotes.filter { $0.optionId == optionId }
            guard !onOption.isEmpty else { continue }
            counts[optionId] = .number(JSONNumber(onOption.count))
            latest[optionId] = .array(onOption.prefix(10).map { .object(vote($0, users: users, showingVoter: !isAnonymous)) })
        }
        let answers = newestFirst.filter(\.isAnswer)
        object["vote_count"] = .number(JSONNumber(optionVotes.count))
        object["vote_counts_by_option"] = .object(counts)
        object["latest_votes_by_option"] = .object(latest)
        object["answers_count"] = .number(JSONNumber(answers.count))
        object["latest_answers"] = .array(answers.prefix(10).map { .object(vote($0, users: users, showingVoter: !isAnonymous)) })
        object["own_votes"] = .array(newestFirst.filter { $0.userId == viewer }.map { .object(vote($0, users: users, showingVoter: true)) })
        object["created_by_id"] = .string(poll.createdBy)
        object["created_by"] = .object(user(id: poll.createdBy, from: users))
        object["created_at"] = .string(RFC3339.string(from: poll.createdAt))
        object["updated_at"] = .string(RFC3339.string(from: poll.updatedAt))
        return object
    }

    /// One vote or answer; an anonymous poll's leave the voter out.
    func vote(_ vote: StoredPollVote, users: [String: StoredUser], showingVoter: Bool = true) -> JSONObject {
        var object: JSONObject = [
            "id": .string(vote.id), "poll_id": .string(vote.pollId), "created_at": .string(RFC3339.string(from: vote.createdAt)),
            "updated_at": .string(RFC3339.string(from: vote.updatedAt)), "is_answer": .bool(vote.isAnswer),
        ]
        if let optionId = vote.optionId { object["option_id"] = .string(optionId) }
        if let answer = vote.answerText { object["answer_text"] = .string(answer) }
        if showingVoter {
            object["user_id"] = .string(vote.userId)
            object["user"] = .object(user(id: vote.userId, from: users))
        }
        return object
    }

    /// The poll `pollId` rendered for `viewer`, reading its votes and their voters in `db`;
    /// nil when there is no such poll.
    func poll(_ pollId: String, viewer: String?, in db: Database) throws -> JSONObject? {
        guard let stored = try PollsTable.fetch(db, pollId) else { return nil }
        let votes = try PollsTable.votes(db, pollId: pollId)
        let users = try UsersTable.fetch(db, ids: Set(votes.map(\.userId) + [stored.createdBy]))
        return poll(stored, votes: votes, users: users, viewer: viewer)
    }
}
