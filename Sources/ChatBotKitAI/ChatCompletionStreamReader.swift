import ChatLocking
import ChatModels
import ChatTransport
import Foundation

/// Reads a streamed Chat Completions answer: server-sent events of `chat.completion.chunk`s,
/// ended by `data: [DONE]`, into ``ModelEvent``s.
///
/// - `choices[0].delta.content` is text;
/// - `choices[0].delta.tool_calls[]` are pieces of tool calls, told apart by `index`: the first
///   piece of a call brings its `id` and `function.name`, every piece a part of
///   `function.arguments`; they are joined and handed on complete when the choice finishes;
/// - `choices[0].finish_reason` ends the choice;
/// - `usage` (with `stream_options.include_usage`, in a last chunk with no choices) is usage; a
///   stream without one gets an estimate: one token per chunk with a delta;
/// - `{"error": …}` in the stream is the service failing mid-answer.
///
/// A stream that ends before `[DONE]` and before any finish reason was cut off. Pulled by the
/// one task that reads the answer; the lock only makes that safe to say.
final class ChatCompletionStreamReader: Sendable {
    private struct State {
        var parser = ServerSentEventParser()
        var pending: [ModelEvent] = []
        var head = 0
        var calls: [Int: ModelToolCall] = [:]
        var finished = false
        var done = false
        var ended = false
        var deltaChunks = 0
        var sawUsage = false
    }

    private let body: HTTPBodyStream
    private let state = Locked(State())

    init(body: HTTPBodyStream) {
        self.body = body
    }

    func next() async throws -> ModelEvent? {
        while true {
            let event = state.withLock { state -> ModelEvent?? in
                if state.head < state.pending.count {
                    defer { state.head += 1 }
                    return .some(state.pending[state.head])
                }
                state.pending.removeAll(keepingCapacity: true)
                state.head = 0
                return state.ended ? .some(nil) : nil
            }
            if let event { return event }
            let chunk: Data?
            do {
                chunk = try await body.next()
            } catch let error as TransportError {
                finish()
                throw ModelError(code: .streamCut, message: "the answer's stream broke off: \(error.message)")
            }
            guard let chunk else {
                try endOfBody()
                continue
            }
            try state.withLock { state throws(ModelError) in
                for event in try state.parser.feed(chunk) where !state.done {
                    try Self.read(event, into: &state)
                }
                if state.done { state.ended = true }
            }
            if state.withLock({ $0.ended }) { body.cancel() }
        }
    }

    private func finish() {
        state.withLock { $0.ended = true }
        body.cancel()
    }

    /// The body ended: fine after `[DONE]` or a finish reason, a cut otherwise.
    private func endOfBody() throws {
        let complete = state.withLock { state -> Bool in
            state.ended = true
            if !state.done { Self.estimateUsage(&state) }
            return state.done || state.finished
        }
        guard complete else {
            throw ModelError(code: .streamCut, message: "the answer's stream ended before the answer did (no finish reason, no [DONE])")
        }
    }

    private static func read(_ event: ServerSentEventParser.Event, into state: inout State) throws(ModelError) {
        let data = event.data.trimmingCharacters(in: .whitespaces)
        if data == "[DONE]" {
            flushCalls(&state, reason: nil)
            estimateUsage(&state)
            state.done = true
            return
        }
        let json: RawJSON
        do {
            json = try JSONParser().parse(data)
        } catch {
            throw ModelError(
                code: .malformedStream,
                message: "line \(event.line) of the answer's stream is not a JSON chunk (\(error.message)): \(data.prefix(120))")
        }
        guard case .object(let chunk) = json else {
            throw ModelError(code: .malformedStream, message: "an event of the answer's stream is not a JSON object: \(data.prefix(120))")
        }
        if let error = chunk["error"] {
            let message = error["message"]?.stringValue ?? error.stringValue ?? JSONWriter.string(error)
            throw ModelError(code: .serverError, message: "the service failed during the answer: \(message)")
        }
        for choice in chunk["choices"]?.arrayValue ?? [] where (choice["index"]?.intValue ?? 0) == 0 {
            if let delta = choice["delta"], delta["content"]?.stringValue != nil || delta["tool_calls"]?.arrayValue != nil {
                state.deltaChunks += 1
            }
            if let delta = choice["delta"] {
                if let text = delta["content"]?.stringValue, !text.isEmpty { state.pending.append(.text(text)) }
                for piece in delta["tool_calls"]?.arrayValue ?? [] { try readToolCall(piece, into: &state) }
            }
            if let reason = choice["finish_reason"]?.stringValue {
                flushCalls(&state, reason: FinishReason(rawValue: reason))
            }
        }
        if let usage = chunk["usage"], case .object = usage {
            state.sawUsage = true
            state.pending.append(
                .usage(ModelUsage(promptTokens: usage["prompt_tokens"]?.intValue ?? 0, completionTokens: usage["completion_tokens"]?.intValue ?? 0)))
        }
    }

    private static func readToolCall(_ piece: RawJSON, into state: inout State) throws(ModelError) {
        let index = piece["index"]?.intValue ?? 0
        let function = piece["function"]
        if var call = state.calls[index] {
            call.arguments += function?["arguments"]?.stringValue ?? ""
            if let id = piece["id"]?.stringValue, call.id.isEmpty { call.id = id }
            state.calls[index] = call
            return
        }
        guard let name = function?["name"]?.stringValue, !name.isEmpty else {
            throw ModelError(code: .malformedStream, message: "tool call \(index) of the answer starts without a function name")
        }
        let id = piece["id"]?.stringValue ?? "call_\(index)"
        state.calls[index] = ModelToolCall(id: id, name: name, arguments: function?["arguments"]?.stringValue ?? "")
        state.pending.append(.toolCallStarted(index: index, name: name))
    }

    /// Usage counted from the chunks, when the service sent none.
    private static func estimateUsage(_ state: inout State) {
        guard !state.sawUsage, state.deltaChunks > 0 else { return }
        state.sawUsage = true
        state.pending.append(.usage(ModelUsage(completionTokens: state.deltaChunks, isEstimate: true)))
    }

    /// The choice ended: its tool calls, complete, then the reason (once).
    private static func flushCalls(_ state: inout State, reason: FinishReason?) {
        if !state.calls.isEmpty {
            state.pending.append(.toolCalls(state.calls.keys.sorted().compactMap { state.calls[$0] }))
            state.calls = [:]
        }
        if let reason, !state.finished {
            state.finished = true
            state.pending.append(.finished(reason))
        }
    }
}
