import ChatTransport
import Foundation
import Testing

@testable import ChatBotKitAI

/// The reader fed the bytes a server sends, cut into network chunks at awkward places.
@Suite struct ChatCompletionStreamReaderTests {
    static func events(_ lines: [String], chunkSize: Int = 7) async throws -> [ModelEvent] {
        let bytes = Data(lines.map { "data: \($0)\n\n" }.joined().utf8)
        let chunks = stride(from: 0, to: bytes.count, by: chunkSize).map { bytes[$0..<min($0 + chunkSize, bytes.count)] }
        let reader = ChatCompletionStreamReader(body: HTTPBodyStream(chunks: chunks.map { Data($0) }))
        var events: [ModelEvent] = []
        while let event = try await reader.next() { events.append(event) }
        return events
    }

    @Test func textToolCallsUsageAndTheFinish() async throws {
        let events = try await Self.events([
            #"{"choices":[{"index":0,"delta":{"role":"assistant","content":"Hé"},"finish_reason":null}]}"#,
            #"{"choices":[{"index":0,"delta":{"content":"llo"},"finish_reason":null}]}"#,
            #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"week_totals","arguments":"{\"we"}}]}}]}"#,
            #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","function":{"name":"recent_workouts","arguments":""}}]}}]}"#,
            #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"eks_ago\": 1}"}}]}}]}"#,
            #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{}"}}]}}]}"#,
            #"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            #"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":5,"total_tokens":17}}"#,
            "[DONE]",
        ])
        #expect(
            events == [
                .text("Hé"), .text("llo"), .toolCallStarted(index: 0, name: "week_totals"), .toolCallStarted(index: 1, name: "recent_workouts"),
                .toolCalls([
                    ModelToolCall(id: "call_a", name: "week_totals", arguments: #"{"weeks_ago": 1}"#),
                    ModelToolCall(id: "call_b", name: "recent_workouts", arguments: "{}"),
                ]),
                .finished(.toolCalls), .usage(ModelUsage(promptTokens: 12, completionTokens: 5)),
            ])
    }

    @Test func aStreamThatStopsBeforeItsEndWasCut() async throws {
        await #expect {
            _ = try await Self.events([#"{"choices":[{"index":0,"delta":{"content":"Hi"}}]}"#])
        } throws: { error in
            (error as? ModelError)?.code == .streamCut
        }
    }

    @Test func aFinishWithoutDoneIsComplete() async throws {
        let events = try await Self.events([#"{"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}"#])
        #expect(events == [.text("Hi"), .finished(.stop), .usage(ModelUsage(completionTokens: 1, isEstimate: true))])
    }

    @Test func aLineThatIsNotJSONIsAMalformedStreamNamingIt() async throws {
        await #expect {
            _ = try await Self.events([#"{"choices":[{"index":0,"delta":{"content":"Hi"}}]}"#, "{not json"])
        } throws: { error in
            guard let error = error as? ModelError else { return false }
            return error.code == .malformedStream && error.message.contains("line 3") && error.message.contains("{not json")
        }
    }

    @Test func anErrorInTheStreamIsTheServiceFailing() async throws {
        await #expect {
            _ = try await Self.events([#"{"error":{"message":"out of memory","type":"server_error"}}"#])
        } throws: { error in
            (error as? ModelError)?.code == .serverError && (error as? ModelError)?.message.contains("out of memory") == true
        }
    }
}

/// A refused request's error, from what the service answered.
@Suite struct ModelErrorReadingTests {
    let url = URL(string: "http://127.0.0.1:1/v1/chat/completions")!

    @Test func statusesAndTheirCodes() {
        let cases: [(Int, ModelError.Code)] = [(401, .unauthorized), (403, .unauthorized), (404, .unknownModel), (429, .rateLimited), (400, .badRequest), (503, .serverError)]
        for (status, code) in cases {
            #expect(ModelErrorReading.error(status: status, retryAfter: nil, body: Data(), model: "m", url: url).code == code)
        }
    }

    @Test func openAIsErrorBodyAndRetryAfter() {
        let body = Data(#"{"error":{"message":"Rate limit reached for gpt-4o-mini","type":"requests","code":"rate_limit_exceeded"}}"#.utf8)
        let error = ModelErrorReading.error(status: 429, retryAfter: "2.5", body: body, model: "gpt-4o-mini", url: url)
        #expect(error.retryAfter == .milliseconds(2500))
        #expect(error.message.contains("Rate limit reached for gpt-4o-mini"))
        #expect(error.userFacingDescription.contains("try again in 3 s"))
    }

    @Test func anUnknownModelNamesIt() {
        let body = Data(#"{"error":{"message":"The model `gpt-9` does not exist","code":"model_not_found"}}"#.utf8)
        let error = ModelErrorReading.error(status: 404, retryAfter: nil, body: body, model: "gpt-9", url: url)
        #expect(error.code == .unknownModel)
        #expect(error.message.contains("\"gpt-9\"") && error.message.contains("does not exist"))
    }

    @Test func fastAPIsDetailAndPlainText() {
        #expect(ModelErrorReading.message(in: Data(#"{"detail":"Invalid API Key"}"#.utf8)) == "Invalid API Key")
        #expect(ModelErrorReading.message(in: Data("Bad Gateway".utf8)) == "Bad Gateway")
    }
}
