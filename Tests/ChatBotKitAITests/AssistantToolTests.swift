import ChatBotKit
import ChatBotKitAI
import ChatBotKitTesting
import Foundation
import Testing

/// The assistant's rounds against the real model server: a tool call whose arguments the
/// token limit cut off goes back to the model as the tool's error, and the next try, with twice
/// the room, calls the tool with arguments that decode.
@Suite(.serialized) struct AssistantToolTests {
    struct Totals: Tool {
        struct Arguments: Decodable, Sendable {
            enum Period: String, SchemaEnumeration { case week, month }
            var period: Period
        }

        static let name = "totals"
        static let description = "The user's totals for a period."

        func call(_ arguments: Arguments, context: ToolContext) async throws -> ToolOutput {
            ToolOutput(json: ["period": .string(arguments.period.rawValue), "distance_km": 12.5])
        }
    }

    @Test func argumentsCutOffAreAnErrorWithWhereTheyBrokeAndTheNextTryWorks() async throws {
        var tools = ToolBox()
        try tools.add(Totals())
        let assistant = Assistant(
            model: try await tinyModel(), tools: tools,
            settings: Assistant.Settings(
                maximumRounds: 6, maximumTokens: 3, maximumTokensLimit: 512, toolChoices: Array(repeating: .function("totals"), count: 5), seed: 5))
        let transcript = try await assistant.respond(to: [.user("How far this week?")], context: ToolContext(bot: nil))
        let results = transcript.toolResults
        let first = try #require(results.first)
        #expect(first.output.isError, "3 tokens cannot hold the arguments: \(first.call.arguments)")
        #expect(first.output.content.contains("arguments"), "the error says where: \(first.output.content)")
        // The model read the error: it is the tool turn answering that call.
        #expect(transcript.messages.contains { $0.role == .tool && $0.toolCallId == first.call.id && $0.content == first.output.content })
        let worked = try #require(results.first { !$0.output.isError }, "a later try decodes: \(results.map(\.call.arguments))")
        #expect(worked.output.content.contains("12.5"))
        #expect(transcript.usage.completionTokens > 0)
    }
}
