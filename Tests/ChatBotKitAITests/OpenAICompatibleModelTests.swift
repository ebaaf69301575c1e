import ChatBotKitAI
import ChatBotKitTesting
import ChatTransport
import Foundation
import Testing

/// The model client against a real OpenAI-compatible server (llama-cpp-python, a tiny random
/// model): the words are nonsense, so these test the protocol.
@Suite(.serialized) struct OpenAICompatibleModelTests {
    @Test func textArrivesInPiecesThatJoinAndUsageIsCounted() async throws {
        let model = try await tinyModel()
        var text = ""
        var pieces = 0
        var usage: ModelUsage?
        var finish: FinishReason?
        for try await event in try await model.stream(ModelRequest(messages: [.user("Say something.")], maxTokens: 64, seed: 1)) {
            switch event {
            case .text(let piece):
                pieces += 1
                text += piece
            case .usage(let reported): usage = reported
            case .finished(let reason): finish = reason
            default: break
            }
        }
        #expect(pieces > 1, "the answer came in pieces")
        #expect(!text.isEmpty)
        #expect(finish == .length || finish == .stop)
        // llama-cpp-python reports no usage in a stream: the client counts a token per chunk.
        let counted = try #require(usage, "usage is counted")
        #expect(counted.completionTokens > 0 && counted.completionTokens <= 64)
        #expect(counted.isEstimate)
        #expect(counted.completionTokens >= pieces, "empty chunks (bytes held back for a UTF-8 character) are tokens too")
    }

    @Test func aForcedToolCallArrivesWholeAndItsArgumentsDecodeOrFailWithAPath() async throws {
        struct Arguments: Decodable, Sendable {
            enum Period: String, SchemaEnumeration { case week, month }
            var period: Period
        }
        let schema = try JSONSchema.derived(from: Arguments.self)
        let tool = ToolDefinition(name: "totals", description: "Totals for a period.", parameters: schema.json)
        func call(maxTokens: Int) async throws -> (ModelToolCall?, FinishReason?) {
            var calls: [ModelToolCall] = []
            var finish: FinishReason?
            let request = ModelRequest(messages: [.user("Totals?")], tools: [tool], toolChoice: .function("totals"), maxTokens: maxTokens, seed: 2)
            for try await event in try await tinyModel().stream(request) {
                if case .toolCalls(let made) = event { calls = made }
                if case .finished(let reason) = event { finish = reason }
            }
            return (calls.first, finish)
        }
        // Room enough: the grammar forces arguments that decode.
        let (whole, _) = try await call(maxTokens: 200)
        let made = try #require(whole)
        #expect(made.name == "totals")
        guard case .success(let decoded) = ToolArguments.decode(Arguments.self, from: made.arguments) else {
            Issue.record("arguments \(made.arguments) did not decode")
            return
        }
        #expect([.week, .month].contains(decoded.period))
        // Cut off by max_tokens: the arguments are cut too, and say where they break.
        let (cut, finish) = try await call(maxTokens: 4)
        #expect(finish == .length || finish == .toolCalls)
        if let cut {
            guard case .failure(let problem) = ToolArguments.decode(Arguments.self, from: cut.arguments) else {
                Issue.record("cut-off arguments \(cut.arguments) decoded")
                return
            }
            #expect(problem.description.hasPrefix("arguments"))
        }
    }

    @Test func aWrongKeyIsRefusedAsUnauthorized() async throws {
        let server = try await TestModelServer.start(apiKey: "the-right-key")
        defer { server.stop() }
        let model = OpenAICompatibleModel(url: server.url, model: server.model, apiKey: "a-wrong-key")
        await #expect {
            _ = try await model.stream(ModelRequest(messages: [.user("hi")], maxTokens: 4))
        } throws: { error in
            (error as? ModelError)?.code == .unauthorized && (error as? ModelError)?.httpStatus == 401
        }
        var pieces = 0
        let right = OpenAICompatibleModel(url: server.url, model: server.model, apiKey: "the-right-key")
        for try await event in try await right.stream(ModelRequest(messages: [.user("hi")], maxTokens: 4)) {
            if case .text = event { pieces += 1 }
        }
        #expect(pieces > 0)
    }

    @Test func aURLThatIsNotTheAPIIsAnUnknownModel() async throws {
        let server = try await SharedModelServer.shared.get()
        let wrong = OpenAICompatibleModel(url: server.url.deletingLastPathComponent().appendingPathComponent("v9"), model: "tiny")
        await #expect {
            _ = try await wrong.stream(ModelRequest(messages: [.user("hi")], maxTokens: 4))
        } throws: { error in
            (error as? ModelError)?.code == .unknownModel && (error as? ModelError)?.httpStatus == 404
        }
    }

    @Test func aURLWhereNothingListensIsUnreachable() async throws {
        let model = OpenAICompatibleModel(url: URL(string: "http://127.0.0.1:9/v1")!, model: "x")
        await #expect {
            _ = try await model.stream(ModelRequest(messages: [.user("hi")]))
        } throws: { error in
            guard let error = error as? ModelError else { return false }
            return error.code == .unreachable && error.message.contains("127.0.0.1:9")
        }
    }

    @Test func aServerThatDiesMidStreamCutsTheStream() async throws {
        let server = try await TestModelServer.start()
        defer { server.stop() }
        let model = OpenAICompatibleModel(url: server.url, model: server.model)
        var pieces = 0
        await #expect {
            for try await event in try await model.stream(ModelRequest(messages: [.user("Long.")], maxTokens: 4000)) {
                guard case .text = event else { continue }
                pieces += 1
                if pieces == 5 { server.kill() }
            }
        } throws: { error in
            (error as? ModelError)?.code == .streamCut
        }
        #expect(pieces >= 5)
    }

    @Test func cancellingTheReaderClosesTheConnectionAndFreesTheServer() async throws {
        let model = try await tinyModel()
        let reading = Task {
            var pieces = 0
            for try await event in try await model.stream(ModelRequest(messages: [.user("Long.")], maxTokens: 4000)) {
                if case .text = event { pieces += 1 }
            }
            return pieces
        }
        try await Task.sleep(for: .seconds(1))
        reading.cancel()
        _ = try? await reading.value
        // llama-cpp-python answers one request at a time: the next is answered at once only if
        // the cancelled one's generation stopped with its connection.
        let started = ContinuousClock.now
        var pieces = 0
        for try await event in try await model.stream(ModelRequest(messages: [.user("hi")], maxTokens: 4)) {
            if case .text = event { pieces += 1 }
        }
        #expect(pieces > 0)
        #expect(ContinuousClock.now - started < .seconds(15))
    }
}
