import ChatModels
import ChatTransport
import Foundation

/// A model behind the OpenAI Chat Completions API, streamed: OpenAI itself, Ollama
/// (`http://127.0.0.1:11434/v1`), llama.cpp's and llama-cpp-python's servers, vLLM, LM Studio.
///
/// ```swift
/// let model = OpenAICompatibleModel(url: URL(string: "http://127.0.0.1:11434/v1")!, model: "llama3.2")
/// for try await event in try await model.stream(ModelRequest(messages: [.user("Hi")])) { … }
/// ```
/// It posts to `{url}/chat/completions` with `stream: true` (and `stream_options.include_usage`)
/// and reads the server-sent `chat.completion.chunk`s as they come, through ChatTransport's
/// libcurl: no SwiftNIO.
public struct OpenAICompatibleModel: LanguageModel {
    /// Where the model is and how to reach it.
    public struct Configuration: Sendable, Hashable {
        /// The API's base URL, up to and including `/v1`.
        public var url: URL
        /// The model's name (`gpt-4o-mini`, `llama3.2`, ...).
        public var model: String
        /// The API key, sent as a bearer token; nil sends none (a local server).
        public var apiKey: String?
        /// Whether to ask for usage in the stream (`stream_options.include_usage`); a server that
        /// refuses the option can be asked without it.
        public var requestsUsage: Bool
        /// Time allowed to connect.
        public var connectTimeout: Duration
        /// Time allowed with no byte from the server (a large model may think long before its
        /// first token).
        public var idleTimeout: Duration

        /// A configuration; 10 s to connect, 5 minutes of silence at most.
        public init(
            url: URL, model: String, apiKey: String? = nil, requestsUsage: Bool = true, connectTimeout: Duration = .seconds(10),
            idleTimeout: Duration = .seconds(300)
        ) {
            self.url = url
            self.model = model
            self.apiKey = apiKey
            self.requestsUsage = requestsUsage
            self.connectTimeout = connectTimeout
            self.idleTimeout = idleTimeout
        }
    }

    /// Where the model is.
    public let configuration: Configuration
    private let transport: any HTTPTransport

    /// A model at `configuration.url`; requests go through `transport` (a libcurl transport of
    /// its own by default).
    public init(_ configuration: Configuration, transport: (any HTTPTransport)? = nil) {
        self.configuration = configuration
        self.transport = transport ?? CurlHTTPTransport()
    }

    /// A model named `model` at `url`, with `apiKey` if the service needs one.
    public init(url: URL, model: String, apiKey: String? = nil) {
        self.init(Configuration(url: url, model: model, apiKey: apiKey))
    }

    /// The model's name.
    public var name: String { configuration.model }

    /// Asks `request`; the answer's events come as the server sends them.
    public func stream(_ request: ModelRequest) async throws -> ModelStream {
        let endpoint = configuration.url.appendingPathComponent("chat/completions")
        var headers: [(name: String, value: String)] = [("Accept", "text/event-stream")]
        if let apiKey = configuration.apiKey, !apiKey.isEmpty { headers.append(("Authorization", "Bearer \(apiKey)")) }
        let transportRequest = TransportRequest(
            method: "POST", url: endpoint, headers: headers,
            body: .data(JSONWriter.data(body(for: request)), contentType: "application/json"),
            connectTimeout: configuration.connectTimeout, idleTimeout: configuration.idleTimeout)
        let response: StreamedTransportResponse
        do {
            response = try await transport.stream(transportRequest)
        } catch let error as TransportError {
            throw ModelError(code: error.code == .connectionLost ? .streamCut : .unreachable, message: "\(endpoint.absoluteString): \(error.message)")
        }
        guard response.status == 200 else {
            throw await ModelErrorReading.error(status: response.status, header: response.header, body: response.body, model: configuration.model, url: endpoint)
        }
        let reader = ChatCompletionStreamReader(body: response.body)
        return ModelStream { try await reader.next() }
    }

    /// The request's JSON body.
    func body(for request: ModelRequest) -> RawJSON {
        var body: JSONObject = [
            "model": .string(configuration.model), "stream": true, "messages": .array(request.messages.map(\.json)),
        ]
        if configuration.requestsUsage { body["stream_options"] = ["include_usage": true] }
        if !request.tools.isEmpty {
            body["tools"] = .array(request.tools.map(\.json))
            body["tool_choice"] = request.toolChoice.json
        }
        if let maxTokens = request.maxTokens { body["max_tokens"] = .number(JSONNumber(maxTokens)) }
        if let temperature = request.temperature { body["temperature"] = .number(JSONNumber(temperature)) }
        if let seed = request.seed { body["seed"] = .number(JSONNumber(seed)) }
        return .object(body)
    }
}
