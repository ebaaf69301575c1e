import ChatModels
import Foundation

/// A poll (`/polls`), sent with a message (`Message.poll`) and voted on through it: its
/// settings, options and the votes so far, as the service counts them.
public struct Poll: Sendable, Hashable {
    /// The poll's id.
    public var id: String
    /// The question.
    public var name: String
    /// More about it, if given.
    public var description: String?
    /// What can be voted for.
    public var options: [PollOption]
    /// Whether the votes show who cast them (`public`) or not (`anonymous`).
    public var isAnonymous: Bool
    /// Single choice: a new vote replaces the voter's other one (`enforce_unique_vote`).
    public var isSingleChoice: Bool
    /// How many options one user may vote for, when limited (`max_votes_allowed`).
    public var maximumVotes: Int?
    /// Whether voters may answer in their own words (`allow_answers`).
    public var allowsAnswers: Bool
    /// Whether it is closed for voting.
    public var isClosed: Bool
    /// Votes on options, all told.
    public var voteCount: Int
    /// Votes by option id (options without votes left out).
    public var voteCountsByOption: [String: Int]
    /// The latest votes of each option (at most ten each), newest first.
    public var latestVotesByOption: [String: [PollVote]]
    /// How many answered in their own words.
    public var answersCount: Int
    /// The latest answers, newest first.
    public var latestAnswers: [PollVote]
    /// The votes of the user it was read as.
    public var ownVotes: [PollVote]
    /// Who created it (and may send, change, close and delete it).
    public var createdById: String?
    /// When it was created.
    public var createdAt: Date?
    /// When it last changed.
    public var updatedAt: Date?
    /// Custom fields, flat on the wire.
    public var extraData: [String: RawJSON]

    static let modelledKeys: Set<String> = [
        "id", "name", "description", "options", "voting_visibility", "enforce_unique_vote", "max_votes_allowed", "allow_answers",
        "allow_user_suggested_options", "is_closed", "vote_count", "vote_counts_by_option", "latest_votes_by_option", "answers_count",
        "latest_answers", "own_votes", "created_by_id", "created_by", "created_at", "updated_at",
    ]

    /// The option with `id`, if the poll has it.
    public func option(_ id: String) -> PollOption? { options.first { $0.id == id } }

    /// The options with the most votes (several on a tie; none before the first vote), in order.
    public var leadingOptions: [PollOption] {
        guard let most = voteCountsByOption.values.max(), most > 0 else { return [] }
        return options.filter { voteCountsByOption[$0.id] == most }
    }

    /// Reads a poll as answers and events carry it; `operation` names the call in errors.
    public init(json: RawJSON, operation: String) throws {
        guard let object = json.objectValue, let id = object["id"]?.stringValue, let name = object["name"]?.stringValue else {
            throw ChatClientError(code: .invalidResponse, message: "\(operation) answered a poll without its id or name")
        }
        self.id = id
        self.name = name
        description = object["description"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        options = try (object["options"]?.arrayValue ?? []).map { try PollOption(json: $0, operation: operation) }
        isAnonymous = object["voting_visibility"]?.stringValue == "anonymous"
        isSingleChoice = object["enforce_unique_vote"]?.boolValue ?? false
        maximumVotes = object["max_votes_allowed"]?.intValue
        allowsAnswers = object["allow_answers"]?.boolValue ?? false
        isClosed = object["is_closed"]?.boolValue ?? false
        voteCount = object["vote_count"]?.intValue ?? 0
        voteCountsByOption = (object["vote_counts_by_option"]?.objectValue ?? [:]).members.reduce(into: [:]) { counts, member in
            counts[member.key] = member.value.intValue ?? 0
        }
        var latest: [String: [PollVote]] = [:]
        for (optionId, votes) in (object["latest_votes_by_option"]?.objectValue ?? [:]).members {
            latest[optionId] = try PollVote.list(votes, operation: operation)
        }
        latestVotesByOption = latest
        answersCount = object["answers_count"]?.intValue ?? 0
        latestAnswers = try PollVote.list(object["latest_answers"], operation: operation)
        ownVotes = try PollVote.list(object["own_votes"], operation: operation)
        createdById = object["created_by_id"]?.stringValue
        createdAt = object["created_at"]?.stringValue.flatMap(RFC3339.date(from:))
        updatedAt = object["updated_at"]?.stringValue.flatMap(RFC3339.date(from:))
        extraData = Dictionary(object.members.filter { !Self.modelledKeys.contains($0.key) }, uniquingKeysWith: { first, _ in first })
    }
}

/// One option of a poll.
public struct PollOption: Sendable, Hashable {
    /// The option's id, which votes name.
    public var id: String
    /// What it says.
    public var text: String
    /// Custom fields.
    public var extraData: [String: RawJSON]

    init(json: RawJSON, operation: String) throws {
        guard let object = json.objectValue, let id = object["id"]?.stringValue else {
            throw ChatClientError(code: .invalidResponse, message: "\(operation) answered a poll option without its id")
        }
        self.id = id
        text = object["text"]?.stringValue ?? ""
        extraData = Dictionary(object.members.filter { $0.key != "id" && $0.key != "text" }, uniquingKeysWith: { first, _ in first })
    }
}

/// A vote on a poll option, or an answer in the voter's own words (``isAnswer``).
public struct PollVote: Sendable, Hashable {
    /// The vote's id (kept when a single-choice vote or an answer is changed).
    public var id: String
    /// The poll.
    public var pollId: String
    /// The option voted for; nil for an answer.
    public var optionId: String?
    /// The answer; nil for a vote on an option.
    public var answerText: String?
    /// Who voted; nil on an anonymous poll (except to the voter).
    public var userId: String?
    /// The voter, when shown.
    public var user: User?
    /// When it was cast.
    public var createdAt: Date?
    /// When it was last changed.
    public var updatedAt: Date?

    /// Whether it is an answer rather than a vote on an option.
    public var isAnswer: Bool { answerText != nil }

    /// Reads a vote as answers and events carry it; `operation` names the call in errors.
    public init(json: RawJSON, operation: String) throws {
        guard let object = json.objectValue, let id = object["id"]?.stringValue, let pollId = object["poll_id"]?.stringValue else {
            throw ChatClientError(code: .invalidResponse, message: "\(operation) answered a poll vote without its id or poll_id")
        }
        self.id = id
        self.pollId = pollId
        optionId = object["option_id"]?.stringValue
        answerText = object["answer_text"]?.stringValue
        userId = object["user_id"]?.stringValue ?? object["user"]?["id"]?.stringValue
        user = try? object["user"].flatMap { $0.isNull ? nil : try User(json: $0) }
        createdAt = object["created_at"]?.stringValue.flatMap(RFC3339.date(from:))
        updatedAt = object["updated_at"]?.stringValue.flatMap(RFC3339.date(from:))
    }

    static func list(_ value: RawJSON?, operation: String) throws -> [PollVote] {
        try (value?.arrayValue ?? []).map { try PollVote(json: $0, operation: operation) }
    }
}

extension Message {
    /// The poll the message carries, as the service rendered it for the reader (nil when it has
    /// none, or its poll was deleted).
    public var poll: Poll? { serverFields["poll"].flatMap { try? Poll(json: $0, operation: "message.poll") } }

    /// The id of the poll the message was sent with.
    public var pollId: String? { serverFields["poll_id"]?.stringValue ?? extraData["poll_id"]?.stringValue }
}

extension Event {
    /// The poll of a `poll.*` event, as it stands after the change.
    public var poll: Poll? { extraData["poll"].flatMap { try? Poll(json: $0, operation: type.rawValue) } }

    /// The vote of a `poll.vote_casted`, `poll.vote_changed` or `poll.vote_removed` event.
    public var pollVote: PollVote? { extraData["poll_vote"].flatMap { try? PollVote(json: $0, operation: type.rawValue) } }
}
