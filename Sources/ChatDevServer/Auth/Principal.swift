/// Who a request acts as.
enum Principal: Sendable, Hashable {
    /// A server-side token (no `user_id`): every operation, acting users named in the body.
    case server
    /// A user token: acts as that user, and reads only channels the user is a member of.
    case user(String)

    /// The user id of a user token.
    var userId: String? {
        if case .user(let id) = self { return id }
        return nil
    }
}
