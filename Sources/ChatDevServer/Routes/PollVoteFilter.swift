import ChatModels
import Foundation

/// The filter of `POST /polls/{id}/votes`: `option_id` and `user_id` (a value, `$eq` or
/// `$in`) and `is_answer` (a boolean or `$eq`), all of which a vote must match.
struct PollVoteFilter {
    private var optionIds: Set<String>?
    private var userIds: Set<String>?
    private var isAnswer: Bool?

    init(_ filter: JSONObject, operation: String) throws {
        for (key, condition) in filter {
            switch key {
            case "option_id": optionIds = try FilterConditions.strings(condition, key: key, operation: operation)
            case "user_id": userIds = try FilterConditions.strings(condition, key: key, operation: operation)
            case "is_answer":
                guard let flag = condition.boolValue ?? condition["$eq"]?.boolValue else {
                    throw APIError.input(operation, "is_answer must be true or false, or {\"$eq\": true}")
                }
                isAnswer = flag
            default:
                throw APIError.input(operation, "filter field \"\(key)\" is not supported by the dev server; use option_id, user_id or is_answer")
            }
        }
    }

    func accepts(_ vote: StoredPollVote) -> Bool {
        if let optionIds, !optionIds.contains(vote.optionId ?? "") { return false }
        if let userIds, !userIds.contains(vote.userId) { return false }
        if let isAnswer, vote.isAnswer != isAnswer { return false }
        return true
    }

}
