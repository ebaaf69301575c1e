import ChatBotKitAI
import Logging

/// An MCP server's tools for an `Assistant`: the server is started when its tools are first
/// asked for, and started again if it has died since.
public actor MCPToolSource: ToolSource {
    /// The command that runs the server.
    public let command: MCPServer.Command
    private let logger: Logger
    private var server: MCPServer?

    /// A source for the server `command` runs.
    public init(_ command: MCPServer.Command, logger: Logger = Logger(label: "chatbotkit.mcp")) {
        self.command = command
        self.logger = logger
    }

    /// The server's tools, starting it if it is not running.
    public func tools() async throws -> [AnyTool] {
        if let server, server.isRunning { return server.tools }
        if server != nil { logger.warning("MCP server \(command.name) had stopped; starting it again") }
        let started = try await MCPServer.start(command, logger: logger)
        server = started
        return started.tools
    }

    /// Stops the server, if it runs.
    public func stop() async {
        await server?.stop()
        server = nil
    }
}
