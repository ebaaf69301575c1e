import ChatModels

/// How a streamed reply is written.
public struct StreamedReplyOptions: Sendable {
    /// The most partial updates a second (3 by default); updates within the bot's rate budget
    /// come on top of that limit, never past it.
    public var updatesPerSecond: Double
    /// Answers in the message's thread (starting one under a channel message).
    public var inThread: Bool
    /// Custom fields the reply carries from its first post on.
    public var extraData: [String: RawJSON]
    /// How long the final text is tried for, waiting out rate limits, before the reply gives up.
    public var finalWriteDeadline: Duration
    /// The most characters the reply's text may have: the service refuses longer messages
    /// (5,000 by default, as Stream's). Text past it is dropped, the reply ends in `…` and gets
    /// `ai_truncated: true`.
    public var maximumLength: Int

    /// Options; the defaults: 3 updates a second, in the channel (or the message's thread),
    /// 10 minutes to write the final text, 5,000 characters.
    public init(
        updatesPerSecond: Double = 3, inThread: Bool = false, extraData: [String: RawJSON] = [:],
        finalWriteDeadline: Duration = .seconds(600), maximumLength: Int = 5000
    ) {
        self.maximumLength = maximumLength
        self.updatesPerSecond = updatesPerSecond
        self.inThread = inThread
        self.extraData = extraData
        self.finalWriteDeadline = finalWriteDeadline
    }
}

/// How a streamed reply ended.
public struct StreamedReplyResult: Sendable {
    /// How it ended.
    public enum Outcome: Sendable {
        /// The generation finished; the reply has its full text.
        case completed
        /// A user stopped it; the reply keeps the text so far and is marked `ai_stopped`.
        case stopped
        /// The generation failed; the reply says why.
        case failed(any Error)
    }

    /// The reply's message id.
    public let messageId: String
    /// The text written last.
    public let text: String
    /// How it ended.
    public let outcome: Outcome
    /// Partial updates sent while text arrived (the final write not counted).
    public let partialUpdates: Int
}
