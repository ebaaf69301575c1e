import ChatBotKit
import ChatBotKitAI
import ChatBotKitConfiguration
import Foundation
import Logging

#if MCP
import ChatBotKitMCP
#endif

/// Questions for the workout bot ("@workout-bot how far did I run this week, and am I on track
/// for my goal?"), answered by a language model with tools over the bot's store, streamed, with
/// the week's summary card; or, with no model configured, how to configure one.
extension WorkoutBot {
    /// The system prompt, unless bots.yaml gives one.
    static let systemPrompt = """
        You are the workout bot of a group chat. People log workouts with you; answer their questions \
        about them briefly and concretely, using the tools for their numbers (never guess numbers). \
        Distances are in kilometres.
        """

    /// What the bot says, and `bots run` logs at start, when no model is configured.
    public static let noModelHelp = """
        I can't answer questions yet: no language model is configured. In bots.yaml, add for Ollama \
        `llm: { url: http://127.0.0.1:11434/v1, model: llama3.2 }`, or for OpenAI \
        `llm: { url: https://api.openai.com/v1, model: gpt-4o-mini, api_key: ${OPENAI_API_KEY} }` \
        (or set LLM_URL, LLM_MODEL and OPENAI_API_KEY for the default bots.yaml), and start again.
        """

    /// Answers messages that mention the bot's user with `assistant`, or with ``noModelHelp``
    /// when it is nil. Commands and workouts keep their own routes.
    static func addQuestions(to bot: Bot, assistant: Assistant?) {
        let userId = bot.user.id
        bot.on(where: { message in isQuestion(message, for: userId) }) { context in
            guard let assistant else {
                // Its links are configuration, not pages to preview (the service would fetch them).
                try await context.reply(text: noModelHelp, skipEnrichURL: true)
                return
            }
            try await assistant.answer(context)
        }
    }

    /// A message that mentions the bot (by the service's mentions or by `@user` in its text)
    /// and is not a command.
    static func isQuestion(_ message: Message, for userId: String) -> Bool {
        guard !message.text.hasPrefix("/") else { return false }
        return message.mentionedUsers.contains { $0.id == userId } || message.text.range(of: "@\(userId)", options: .caseInsensitive) != nil
    }

    /// The assistant of a bot configured with `settings`, its tools over `store`.
    public static func assistant(model: any LanguageModel, store: WorkoutStore, systemPrompt: String? = nil, maxTokens: Int? = nil) throws
        -> Assistant
    {
        Assistant(
            model: model, tools: try WorkoutTools.toolBox(store: store), memory: ConversationMemory(maximumMessages: 30, maximumCharacters: 8_000),
            settings: Assistant.Settings(systemPrompt: systemPrompt ?? Self.systemPrompt, maximumTokens: maxTokens ?? 1024))
    }
}

extension WorkoutBot {
    /// The tool sources of the entry's `mcp:` servers (each started on the first question).
    static func mcpToolSources(_ entry: BotsConfiguration.BotEntry, logger: Logger) throws -> [any ToolSource] {
        let servers = try BotsConfiguration.parseMCPServers(entry.node["mcp"])
        #if MCP
        return servers.map { MCPToolSource(MCPServer.Command(name: $0.name, arguments: $0.command, environment: $0.environment), logger: logger) }
        #else
        if let node = entry.node["mcp"], !servers.isEmpty {
            throw node.error(.badValue, "mcp: servers need ChatBotKit's MCP trait, which this build does not have")
        }
        return []
        #endif
    }
}
