/// What a model's streamed answer brings, in order.
public enum ModelEvent: Sendable, Hashable {
    /// Text of the answer (the next piece).
    case text(String)
    /// The model began calling a tool (its arguments follow); a reply shows external sources.
    case toolCallStarted(index: Int, name: String)
    /// The tool calls of the answer, complete, just before it finishes.
    case toolCalls([ModelToolCall])
    /// Tokens used, when the service reports them.
    case usage(ModelUsage)
    /// The answer ended, and why.
    case finished(FinishReason)
}

/// Why an answer ended (`finish_reason`).
public struct FinishReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The wire value.
    public let rawValue: String
    /// A reason from its wire value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The model finished.
    public static let stop = FinishReason(rawValue: "stop")
    /// `max_tokens` cut it off.
    public static let length = FinishReason(rawValue: "length")
    /// It called tools.
    public static let toolCalls = FinishReason(rawValue: "tool_calls")
    /// A content filter cut it off.
    public static let contentFilter = FinishReason(rawValue: "content_filter")
    /// The wire value.
    public var description: String { rawValue }
}

/// Tokens a request used.
public struct ModelUsage: Sendable, Hashable {
    /// Tokens of the prompt.
    public var promptTokens: Int
    /// Tokens of the answer.
    public var completionTokens: Int
    /// Whether the client counted them because the service reported none (llama-cpp-python's
    /// server sends no usage in a stream): then each streamed chunk is one token (as it is
    /// with llama.cpp) and the prompt's tokens are unknown (0).
    public var isEstimate: Bool
    /// Both.
    public var totalTokens: Int { promptTokens + completionTokens }

    /// Usage.
    public init(promptTokens: Int = 0, completionTokens: Int = 0, isEstimate: Bool = false) {
        self.promptTokens = promptTokens
        self.completionTokens = completionTokens
        self.isEstimate = isEstimate
    }

    /// Both added up.
    public static func + (lhs: ModelUsage, rhs: ModelUsage) -> ModelUsage {
        ModelUsage(
            promptTokens: lhs.promptTokens + rhs.promptTokens, completionTokens: lhs.completionTokens + rhs.completionTokens,
            isEstimate: lhs.isEstimate || rhs.isEstimate)
    }
}
