/// A language model that answers a conversation as a stream: text as it comes, tool calls,
/// usage and the reason it ended.
///
/// ``OpenAICompatibleModel`` talks to any service with the Chat Completions API (OpenAI,
/// Ollama, llama.cpp's server, vLLM, LM Studio).
public protocol LanguageModel: Sendable {
    /// The model's name, for logs and errors.
    var name: String { get }
    /// Asks `request`; the answer's events come as they arrive. Errors are ``ModelError``s;
    /// cancelling the reading task closes the connection.
    func stream(_ request: ModelRequest) async throws -> ModelStream
}

/// A model's answer, event by event (see ``ModelEvent``). Read it once.
public struct ModelStream: AsyncSequence, Sendable {
    /// An event.
    public typealias Element = ModelEvent

    private let nextEvent: @Sendable () async throws -> ModelEvent?

    /// A stream that reads its events with `next` (nil at the end).
    public init(next: @escaping @Sendable () async throws -> ModelEvent?) {
        nextEvent = next
    }

    /// Reads the events in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let nextEvent: @Sendable () async throws -> ModelEvent?
        /// The next event, or nil at the end of the answer.
        public mutating func next() async throws -> ModelEvent? { try await nextEvent() }
    }

    /// An iterator.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(nextEvent: nextEvent) }

}
