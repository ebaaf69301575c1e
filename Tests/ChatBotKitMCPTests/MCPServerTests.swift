import ChatBotKitAI
import ChatBotKitMCP
#if canImport(Glibc)
import Glibc
#endif
import ChatBotKitTesting
import Foundation
import Testing

/// MCP tools from real MCP servers from PyPI (`mcp-server-time`, `mcp-server-sqlite`), run as
/// stdio commands from the tests' Python environment.
@Suite(.serialized) struct MCPServerTests {
    /// A console script of the tests' Python environment.
    static func script(_ name: String) -> String {
        URL(fileURLWithPath: TestModelServer.pythonPath()).deletingLastPathComponent().appendingPathComponent(name).path
    }

    @Test func theTimeServersToolsAreCalledWithTheModelsArguments() async throws {
        let server = try await MCPServer.start(MCPServer.Command(name: "time", arguments: [Self.script("mcp-server-time"), "--local-timezone", "UTC"]))
        let tools = ToolBox(server.tools)
        let names = tools.tools.map(\.name)
        #expect(names.contains("get_current_time"))
        let now = await tools.call(ModelToolCall(id: "1", name: "get_current_time", arguments: #"{"timezone":"Europe/Paris"}"#), context: ToolContext(bot: nil))
        #expect(!now.isError)
        #expect(now.content.contains("Europe/Paris"))
        let wrong = await tools.call(ModelToolCall(id: "2", name: "get_current_time", arguments: #"{"timezone":"Mars/Olympus"}"#), context: ToolContext(bot: nil))
        #expect(wrong.isError)
        await server.stop()
    }

    @Test func theSQLiteServerReadsADatabase() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mcp-sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("workouts.sqlite").path
        let server = try await MCPServer.start(MCPServer.Command(name: "sqlite", arguments: [Self.script("mcp-server-sqlite"), "--db-path", database]))
        let tools = ToolBox(server.tools)
        let context = ToolContext(bot: nil)
        let created = await tools.call(
            ModelToolCall(id: "1", name: "create_table", arguments: #"{"query":"CREATE TABLE workouts (user TEXT, meters INTEGER)"}"#), context: context)
        #expect(!created.isError, "\(created.content)")
        _ = await tools.call(
            ModelToolCall(id: "2", name: "write_query", arguments: #"{"query":"INSERT INTO workouts VALUES ('ann', 5000), ('ann', 7000)"}"#), context: context)
        let total = await tools.call(
            ModelToolCall(id: "3", name: "read_query", arguments: #"{"query":"SELECT SUM(meters) AS total FROM workouts"}"#), context: context)
        #expect(total.content.contains("12000"))
        await server.stop()
    }

    @Test func aServerThatDoesNotStartSaysWhich() async throws {
        await #expect {
            _ = try await MCPServer.start(MCPServer.Command(name: "nothing", arguments: ["/nonexistent/mcp-server"]), timeout: .seconds(10))
        } throws: { error in
            guard let error = error as? MCPServerError else { return false }
            return error.code == .startFailed && error.message.contains("nothing")
        }
    }

    @Test func aServerThatDiesIsTheToolsErrorForTheModelNamingIt() async throws {
        let server = try await MCPServer.start(MCPServer.Command(name: "time", arguments: [Self.script("mcp-server-time")]))
        kill(server.processIdentifier, SIGKILL)
        try await eventually("the server is gone") { !server.isRunning }
        let tools = ToolBox(server.tools)
        let output = await tools.call(ModelToolCall(id: "1", name: "get_current_time", arguments: #"{"timezone":"UTC"}"#), context: ToolContext(bot: nil))
        #expect(output.isError)
        #expect(output.content.contains("MCP server time exited"), "\(output.content)")
        // Later calls fail at once too, instead of waiting for an answer that cannot come.
        let again = await tools.call(ModelToolCall(id: "2", name: "get_current_time", arguments: #"{"timezone":"UTC"}"#), context: ToolContext(bot: nil))
        #expect(again.isError)
        await server.stop()
    }
}

/// An assistant whose model calls an MCP server's tool: the real model (forced to call it)
/// writes arguments, the real server answers, and the answer goes back to the model.
@Suite(.serialized) struct MCPAssistantTests {
    @Test func theModelCallsAnMCPServersToolThroughItsSource() async throws {
        let model = try await TestModelServer.start()
        defer { model.stop() }
        let source = MCPToolSource(MCPServer.Command(name: "time", arguments: [MCPServerTests.script("mcp-server-time"), "--local-timezone", "UTC"]))
        var assistant = Assistant(
            model: OpenAICompatibleModel(url: model.url, model: model.model),
            settings: Assistant.Settings(maximumRounds: 2, maximumTokens: 300, toolChoices: [.function("get_current_time")], seed: 4))
        assistant.toolSources = [source]
        let transcript = try await assistant.respond(to: [.user("What time is it in Paris?")], context: ToolContext(bot: nil))
        let call = try #require(transcript.toolResults.first)
        #expect(call.call.name == "get_current_time")
        // Random words for a time zone: the server's own error goes back; a real zone: the time.
        #expect(call.output.isError || call.output.content.contains("datetime"), "\(call.output.content)")
        #expect(transcript.messages.contains { $0.role == .tool && $0.toolCallId == call.call.id })
        await source.stop()
    }
}
