import ChatBotKit
import ChatModels

/// An AI assistant: a model, a system prompt, tools, and the conversation it remembers, that
/// answers a chat message with a streamed reply (``answer(_:)``).
///
/// Each round asks the model with the conversation so far; tool calls it makes are run, their
/// results added, and the model asked again, until it answers with text or the rounds run out
/// (the last round offers no tools). While tools run, the channel's indicator shows external
/// sources; the payloads tools attach go on the reply.
public struct Assistant: Sendable {
    /// How the assistant asks its model.
    public struct Settings: Sendable {
        /// The instructions every conversation starts with.
        public var systemPrompt: String
        /// The most model requests for one answer (tool rounds included).
        public var maximumRounds: Int
        /// The most tokens per answer; nil for the service's default.
        public var maximumTokens: Int?
        /// The most tokens a retry may grow to: a round whose tool arguments were cut off by
        /// the token limit is tried again with twice the room.
        public var maximumTokensLimit: Int
        /// Which tool each round must call, by round (the last entry holds for the rest);
        /// `[.auto]` by default.
        public var toolChoices: [ModelRequest.ToolChoice]
        /// Sampling temperature; nil for the service's default.
        public var temperature: Double?
        /// A seed, for repeatable answers where the service supports one.
        public var seed: Int?

        /// Settings: 4 rounds, 1,024 tokens (up to 8,192 on retries), the model picks its tools.
        public init(
            systemPrompt: String = "You are a helpful assistant in a group chat. Answer briefly.", maximumRounds: Int = 4,
            maximumTokens: Int? = 1024, maximumTokensLimit: Int = 8192, toolChoices: [ModelRequest.ToolChoice] = [.auto],
            temperature: Double? = nil, seed: Int? = nil
        ) {
            self.systemPrompt = systemPrompt
            self.maximumRounds = max(1, maximumRounds)
            self.maximumTokens = maximumTokens
            self.maximumTokensLimit = maximumTokensLimit
            self.toolChoices = toolChoices.isEmpty ? [.auto] : toolChoices
            self.temperature = temperature
            self.seed = seed
        }
    }

    /// What one answer took: the turns added, its text, tool results and tokens.
    public struct Transcript: Sendable {
        /// The conversation as sent last, with the answer's turns.
        public var messages: [ModelMessage]
        /// The answer's text.
        public var text = ""
        /// Each tool call and what it gave back.
        public var toolResults: [(call: ModelToolCall, output: ToolOutput)] = []
        /// Tokens used over all rounds.
        public var usage = ModelUsage()
        /// Model requests made.
        public var rounds = 0
        /// Why the last round ended.
        public var finishReason: FinishReason?
    }

    /// The model.
    public var model: any LanguageModel
    /// The tools it may call.
    public var tools: ToolBox
    /// Where more tools come from (MCP servers), asked before each answer; a tool of the same
    /// name in ``tools`` is replaced.
    public var toolSources: [any ToolSource] = []
    /// What it remembers of the chat.
    public var memory: ConversationMemory
    /// How it asks.
    public var settings: Settings
    /// How its replies are streamed.
    public var replyOptions: StreamedReplyOptions

    /// An assistant.
    public init(
        model: any LanguageModel, tools: ToolBox = ToolBox(), memory: ConversationMemory = ConversationMemory(), settings: Settings = Settings(),
        replyOptions: StreamedReplyOptions = StreamedReplyOptions()
    ) {
        self.model = model
        self.tools = tools
        self.memory = memory
        self.settings = settings
        self.replyOptions = replyOptions
    }

    /// Answers the message being handled with a streamed reply: the conversation from
    /// ``memory``, the tools' payloads attached, and the tokens used in `ai_usage`.
    @discardableResult
    public func answer(_ context: BotContext) async throws -> StreamedReplyResult {
        let conversation = try await memory.messages(for: context)
        return try await context.streamReply(options: replyOptions) { writer in
            let transcript = try await respond(to: conversation, context: ToolContext(bot: context), writer: writer)
            writer.setField(
                "ai_usage",
                ["prompt_tokens": .number(JSONNumber(transcript.usage.promptTokens)), "completion_tokens": .number(JSONNumber(transcript.usage.completionTokens))])
        }
    }

    /// Runs the rounds for `conversation` (without the system prompt), writing text to `writer`
    /// if given.
    public func respond(to conversation: [ModelMessage], context: ToolContext, writer: StreamedReplyWriter? = nil) async throws -> Transcript {
        var transcript = Transcript(messages: [.system(settings.systemPrompt)] + conversation)
        var maximumTokens = settings.maximumTokens
        var toolBox = self.tools
        for source in toolSources {
            for tool in try await source.tools() { toolBox.add(tool) }
        }
        for round in 0..<settings.maximumRounds {
            let isLast = round == settings.maximumRounds - 1
            let tools = isLast ? [] : toolBox.definitions
            let choice = settings.toolChoices[min(round, settings.toolChoices.count - 1)]
            let request = ModelRequest(
                messages: transcript.messages, tools: tools, toolChoice: choice, maxTokens: maximumTokens, temperature: settings.temperature,
                seed: settings.seed)
            var text = ""
            var calls: [ModelToolCall] = []
            var roundUsage = ModelUsage()
            var finish: FinishReason?
            transcript.rounds += 1
            for try await event in try await model.stream(request) {
                switch event {
                case .text(let piece):
                    text += piece
                    writer?.append(piece)
                case .toolCallStarted: writer?.show(.externalSources)
                case .toolCalls(let made): calls = made
                case .usage(let usage): roundUsage = roundUsage + usage
                case .finished(let reason): finish = reason
                }
            }
            transcript.text += text
            transcript.usage = transcript.usage + roundUsage
            transcript.finishReason = finish
            guard !calls.isEmpty else { break }
            transcript.messages.append(.assistant(text, toolCalls: calls))
            writer?.show(.externalSources)
            var failed = false
            for call in calls {
                let output = await toolBox.call(call, context: context)
                transcript.toolResults.append((call, output))
                failed = failed || output.isError
                for attachment in output.attachments { writer?.attach(attachment) }
                transcript.messages.append(.tool(output.content, callId: call.id))
            }
            // Arguments cut off by the token limit (a `length` finish, or the round used all its
            // tokens: llama.cpp's servers say `tool_calls` either way): the next try gets twice the room.
            if failed, let tokens = maximumTokens, finish == .length || roundUsage.completionTokens >= tokens {
                maximumTokens = min(tokens * 2, settings.maximumTokensLimit)
            }
        }
        return transcript
    }
}
