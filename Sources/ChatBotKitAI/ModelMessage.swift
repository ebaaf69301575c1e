import ChatModels

/// One turn of a conversation with a model, as the Chat Completions API takes it.
public struct ModelMessage: Sendable, Hashable {
    /// Who speaks.
    public enum Role: String, Sendable, Hashable {
        /// The instructions.
        case system
        /// A person.
        case user
        /// The model (the bot's own earlier messages).
        case assistant
        /// A tool's result.
        case tool
    }

    /// Who speaks.
    public var role: Role
    /// What is said.
    public var content: String
    /// The tools the model called in this turn (assistant turns).
    public var toolCalls: [ModelToolCall]
    /// The call this result answers (tool turns).
    public var toolCallId: String?

    /// A turn.
    public init(role: Role, content: String, toolCalls: [ModelToolCall] = [], toolCallId: String? = nil) {
        self.role = role
        self.content = content
        self.toolCalls = toolCalls
        self.toolCallId = toolCallId
    }

    /// The system prompt.
    public static func system(_ content: String) -> ModelMessage { ModelMessage(role: .system, content: content) }
    /// A person's turn.
    public static func user(_ content: String) -> ModelMessage { ModelMessage(role: .user, content: content) }
    /// The model's turn.
    public static func assistant(_ content: String, toolCalls: [ModelToolCall] = []) -> ModelMessage {
        ModelMessage(role: .assistant, content: content, toolCalls: toolCalls)
    }
    /// A tool's result for `callId`.
    public static func tool(_ content: String, callId: String) -> ModelMessage { ModelMessage(role: .tool, content: content, toolCallId: callId) }

    /// The message as the Chat Completions API takes it.
    var json: RawJSON {
        var object: JSONObject = ["role": .string(role.rawValue)]
        object["content"] = .string(content)
        if !toolCalls.isEmpty { object["tool_calls"] = .array(toolCalls.map(\.json)) }
        if let toolCallId { object["tool_call_id"] = .string(toolCallId) }
        return .object(object)
    }
}

/// A tool call a model made: which tool, and its arguments as the JSON text the model wrote
/// (which may be cut off or wrong; the tool's decoding says so).
public struct ModelToolCall: Sendable, Hashable {
    /// The call's id, which the result names.
    public var id: String
    /// The tool's name.
    public var name: String
    /// The arguments, as JSON text.
    public var arguments: String

    /// A call.
    public init(id: String, name: String, arguments: String) {
        self.id = id
        self.name = name
        self.arguments = arguments
    }

    var json: RawJSON {
        ["id": .string(id), "type": "function", "function": ["name": .string(name), "arguments": .string(arguments)]]
    }
}
