import ChatModels

/// A conversation type's handler, with the state's type erased to JSON.
struct ConversationRoute: Sendable {
    /// What a turn came to, the next state in JSON.
    enum Outcome: Sendable {
        case next(RawJSON)
        case end
        case pass
    }

    let timeout: Duration
    let cancelCommand: String?
    let cancelledText: String?
    let expiredText: String?
    /// Decodes the saved state (throwing ``ConversationStateUnreadable`` when it does not fit),
    /// runs the handler, and encodes what it answered.
    let turn: @Sendable (RawJSON, BotContext) async throws -> Outcome

    init<State: Conversation>(_ type: State.Type, handler: @escaping @Sendable (State, BotContext) async throws -> ConversationTurn<State>) {
        timeout = State.timeout
        cancelCommand = State.cancelCommand?.lowercased()
        cancelledText = State.cancelledText
        expiredText = State.expiredText
        turn = { json, context in
            let state: State
            do {
                state = try RawJSONDecoder().decode(State.self, from: json)
            } catch {
                throw ConversationStateUnreadable(name: State.name, reason: error)
            }
            switch try await handler(state, context) {
            case .next(let next): return .next(try RawJSONEncoder().encode(next))
            case .end: return .end
            case .pass: return .pass
            }
        }
    }
}

/// A saved state that no longer decodes as its conversation type (the type changed between runs).
struct ConversationStateUnreadable: Error {
    let name: String
    let reason: any Error
}
