import ChatModels

/// What a model is asked: the conversation, the tools it may call, and limits.
public struct ModelRequest: Sendable {
    /// Which tool the model must call, if any.
    public enum ToolChoice: Sendable, Hashable {
        /// The model decides.
        case auto
        /// No tool: text only.
        case none
        /// Some tool.
        case required
        /// This tool.
        case function(String)

        var json: RawJSON {
            switch self {
            case .auto: "auto"
            case .none: "none"
            case .required: "required"
            case .function(let name): ["type": "function", "function": ["name": .string(name)]]
            }
        }
    }

    /// The conversation, system prompt first.
    public var messages: [ModelMessage]
    /// The tools offered.
    public var tools: [ToolDefinition]
    /// Which tool must be called.
    public var toolChoice: ToolChoice
    /// The most tokens the answer may have; nil for the service's default.
    public var maxTokens: Int?
    /// Sampling temperature; nil for the service's default.
    public var temperature: Double?
    /// A seed, for services that make answers repeatable with one.
    public var seed: Int?

    /// A request.
    public init(
        messages: [ModelMessage], tools: [ToolDefinition] = [], toolChoice: ToolChoice = .auto, maxTokens: Int? = nil, temperature: Double? = nil,
        seed: Int? = nil
    ) {
        self.messages = messages
        self.tools = tools
        self.toolChoice = toolChoice
        self.maxTokens = maxTokens
        self.temperature = temperature
        self.seed = seed
    }
}

/// A tool as a model is shown it: name, what it does, and its arguments' JSON schema.
public struct ToolDefinition: Sendable, Hashable {
    /// The name the model calls it by.
    public var name: String
    /// What it does, for the model.
    public var description: String
    /// The JSON schema of its arguments (an object).
    public var parameters: RawJSON

    /// A definition.
    public init(name: String, description: String, parameters: RawJSON) {
        self.name = name
        self.description = description
        self.parameters = parameters
    }

    var json: RawJSON {
        ["type": "function", "function": ["name": .string(name), "description": .string(description), "parameters": parameters]]
    }
}
