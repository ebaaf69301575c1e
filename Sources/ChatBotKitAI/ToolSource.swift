/// Tools that must be fetched before they can be offered (an MCP server's, which has to be
/// started and asked); an ``Assistant`` asks each of its sources before it answers.
public protocol ToolSource: Sendable {
    /// The tools; what this throws ends the answer with the error.
    func tools() async throws -> [AnyTool]
}
