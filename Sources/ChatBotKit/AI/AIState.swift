/// What an AI assistant is doing for a reply, as Stream's UI kits show it (`ai_state` of an
/// `ai_indicator.update` event: React's `AIStateIndicator`, Swift's `AIIndicatorUpdateEvent`).
public struct AIState: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The wire value.
    public let rawValue: String
    /// A state from its wire value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The model was asked and nothing has come back yet.
    public static let thinking = AIState(rawValue: "AI_STATE_THINKING")
    /// Text is arriving.
    public static let generating = AIState(rawValue: "AI_STATE_GENERATING")
    /// The assistant is calling tools or reading other sources.
    public static let externalSources = AIState(rawValue: "AI_STATE_EXTERNAL_SOURCES")
    /// The reply failed; its text says why.
    public static let error = AIState(rawValue: "AI_STATE_ERROR")
    /// Nothing is going on (what UI kits fall back to on `ai_indicator.clear`).
    public static let idle = AIState(rawValue: "AI_STATE_IDLE")

    /// The wire value.
    public var description: String { rawValue }
}

/// An error that can say, in words a chat user understands, what went wrong; a streamed reply
/// that fails shows it (``BotContext/streamReply(options:_:)``).
public protocol UserFacingError: Error {
    /// What went wrong, for the people in the channel: no codes, no stack.
    var userFacingDescription: String { get }
}
