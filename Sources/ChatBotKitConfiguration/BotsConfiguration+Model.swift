import ChatBotKit
import ChatBotKitAI
import Foundation

extension BotsConfiguration {
    /// The language model a bot answers with (`llm:`), at the top of `bots.yaml` for every bot
    /// that uses one, or in a bot's entry, whose keys override the top's:
    ///
    /// ```yaml
    /// llm:
    ///   url: https://api.openai.com/v1     # or Ollama's http://127.0.0.1:11434/v1
    ///   model: gpt-4o-mini
    ///   api_key: ${OPENAI_API_KEY}
    ///   system_prompt: You are the workout bot of a running club.
    ///   max_tokens: 1024
    /// ```
    /// An empty `url` (`${LLM_URL:-}` with the variable unset) configures no model.
    public struct ModelSettings: Sendable, Equatable {
        /// The API's base URL, up to `/v1`.
        public var url: URL
        /// The model's name.
        public var model: String
        /// The API key, if the service needs one.
        public var apiKey: Secret?
        /// The system prompt, if set here (a bot kind has its own otherwise).
        public var systemPrompt: String?
        /// The most tokens per answer, if set.
        public var maxTokens: Int?

        /// Settings.
        public init(url: URL, model: String, apiKey: Secret? = nil, systemPrompt: String? = nil, maxTokens: Int? = nil) {
            self.url = url
            self.model = model
            self.apiKey = apiKey
            self.systemPrompt = systemPrompt
            self.maxTokens = maxTokens
        }

        /// The model these settings name.
        public func makeModel() -> OpenAICompatibleModel {
            OpenAICompatibleModel(url: url, model: model, apiKey: apiKey?.value)
        }
    }

    /// The keys of an `llm:` section.
    public static let modelKeys = ["url", "model", "api_key", "system_prompt", "max_tokens"]

    /// The settings of `node` (an `llm:` section) over `base` (the top's, for a bot's own);
    /// nil when no model is configured (no section, or an empty url).
    public static func parseModel(_ node: ConfigNode?, over base: ModelSettings? = nil) throws(ConfigurationError) -> ModelSettings? {
        guard let node else { return base }
        try node.allowOnly(modelKeys)
        let urlText = try node["url"]?.string().trimmingCharacters(in: .whitespaces)
        if urlText?.isEmpty == true { return nil }
        let url: URL?
        if let urlText {
            guard let parsed = Server.httpURL(urlText) else {
                throw node["url"]!.error(.badValue, "llm.url must be an http(s) URL such as http://127.0.0.1:11434/v1, found \"\(urlText)\"")
            }
            url = parsed
        } else {
            url = base?.url
        }
        let model = try node["model"]?.string() ?? base?.model
        guard let url else { throw node.error(.missingKey, "llm needs a url (Ollama's is http://127.0.0.1:11434/v1)") }
        guard let model, !model.isEmpty else { throw node.error(.missingKey, "llm needs a model (gpt-4o-mini, llama3.2, ...)") }
        let key = try node["api_key"]?.string()
        let maxTokens = try node["max_tokens"]?.int()
        if let maxTokens, maxTokens < 1, let place = node["max_tokens"] {
            throw place.error(.badValue, "llm.max_tokens must be at least 1, found \(maxTokens)")
        }
        return ModelSettings(
            url: url, model: model, apiKey: key.map { $0.isEmpty ? nil : Secret($0) } ?? base?.apiKey,
            systemPrompt: try node["system_prompt"]?.string() ?? base?.systemPrompt, maxTokens: maxTokens ?? base?.maxTokens)
    }
}

extension BotKindEnvironment {
    /// The model for `entry`: its own `llm:` over the top's; nil when neither configures one.
    public func model(for entry: BotsConfiguration.BotEntry) throws(ConfigurationError) -> BotsConfiguration.ModelSettings? {
        try BotsConfiguration.parseModel(entry.node["llm"], over: llm)
    }
}
