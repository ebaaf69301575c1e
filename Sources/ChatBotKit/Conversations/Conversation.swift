/// A conversation a bot holds with one person: the questions it still has to ask, as a value.
///
/// A conversation is a `Codable` state, most naturally an enum of the steps still to come:
///
/// ```swift
/// enum GoalSetup: Conversation {
///     case distance
///     case days(kilometres: Double)
/// }
/// bot.command("goal") { _, context in
///     try await context.reply(text: "How many kilometres a week?")
///     try await context.startConversation(GoalSetup.distance)
/// }
/// bot.onConversation(GoalSetup.self) { step, context in
///     switch step {
///     case .distance: …; return .next(.days(kilometres: km))
///     case .days(let km): …; return .end
///     }
/// }
/// ```
///
/// Once started, the person's next messages in that channel (in that thread, when it started
/// in one) go to the conversation's handler before any other route, until it ends, the person
/// sends `/cancel`, or ``timeout`` passes without an answer. The state is saved between turns
/// (`bots run` keeps it in `.bots/conversations`), so a conversation survives a restart.
public protocol Conversation: Codable, Sendable {
    /// How long the bot waits for each answer; a later message is routed as usual and the
    /// conversation is forgotten. Measured on the messages' own times, so a bot catching up
    /// after a stop does not count the time it was down. Ten minutes unless a type says otherwise.
    static var timeout: Duration { get }
    /// What its saved state is filed under: the type's name unless it says otherwise. Keep it
    /// when renaming the type, or conversations under way are forgotten.
    static var name: String { get }
    /// The command that ends it from the person's side (`cancel`, typed `/cancel`); nil for none.
    static var cancelCommand: String? { get }
    /// What the bot answers to ``cancelCommand``; nil to end it without a word.
    static var cancelledText: String? { get }
    /// What the bot tells the person when ``timeout`` passes without an answer: as soon as it
    /// passes while the bot runs (a second later, in the conversation's thread, mentioning
    /// them), or, when it passed while the bot was stopped, in answer to their next message
    /// (which is then routed as usual). Nil (the default) to say nothing; the conversation is
    /// then forgotten at the person's next message.
    static var expiredText: String? { get }
}

extension Conversation {
    /// Ten minutes.
    public static var timeout: Duration { .seconds(600) }
    /// The type's name.
    public static var name: String { String(describing: Self.self) }
    /// `cancel`.
    public static var cancelCommand: String? { "cancel" }
    /// "Cancelled."
    public static var cancelledText: String? { "Cancelled." }
    /// None.
    public static var expiredText: String? { nil }
}

/// What a conversation's handler makes of one message.
public enum ConversationTurn<State: Conversation>: Sendable {
    /// The message was an answer; wait for the next one in `State` (the same step again to ask again).
    case next(State)
    /// The message was the last answer: the conversation is over.
    case end
    /// The message is not an answer (a command, a file for another route): route it as usual
    /// and keep waiting.
    case pass
}
