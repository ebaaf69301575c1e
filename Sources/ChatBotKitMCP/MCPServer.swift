import ChatBotKitAI
import ChatLocking
import ChatModels
import Foundation
import Logging
import MCP

#if canImport(System)
import System
#else
@preconcurrency import SystemPackage
#endif

/// A Model Context Protocol server run as a stdio command (`mcp-server-time`,
/// `mcp-server-sqlite --db-path workouts.sqlite`), whose tools an `Assistant` can call.
///
/// ```swift
/// let time = try await MCPServer.start(MCPServer.Command(name: "time", arguments: ["mcp-server-time"]))
/// var tools = ToolBox(time.tools)
/// ```
/// Built on modelcontextprotocol/swift-sdk's client and stdio transport. A server that does not
/// start, or dies, is an ``MCPServerError`` naming it with the last of what it printed; a call
/// to a dead server goes back to the model as the tool's error.
public final class MCPServer: Sendable {
    /// The command that runs a server.
    public struct Command: Sendable, Hashable {
        /// The server's name, for errors and logs.
        public var name: String
        /// The executable and its arguments (the executable is looked up in `PATH`).
        public var arguments: [String]
        /// Variables added to the environment.
        public var environment: [String: String]

        /// A command.
        public init(name: String, arguments: [String], environment: [String: String] = [:]) {
            self.name = name
            self.arguments = arguments
            self.environment = environment
        }
    }

    /// The command.
    public let command: Command
    /// The server's tools, as an assistant calls them.
    public let tools: [AnyTool]
    private let client: Client
    private let process: Process
    private let output: Locked<Data>

    private init(command: Command, tools: [AnyTool], client: Client, process: Process, output: Locked<Data>) {
        self.command = command
        self.tools = tools
        self.client = client
        self.process = process
        self.output = output
    }

    /// Starts the server, connects, and lists its tools, within `timeout`; each call waits at
    /// most `callTimeout`.
    public static func start(
        _ command: Command, timeout: Duration = .seconds(30), callTimeout: Duration = .seconds(60), logger: Logger = Logger(label: "chatbotkit.mcp")
    ) async throws -> MCPServer {
        guard let executable = command.arguments.first else {
            throw MCPServerError(code: .startFailed, message: "MCP server \(command.name) has no command")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + command.arguments.dropFirst()
        process.environment = ProcessInfo.processInfo.environment.merging(command.environment) { $1 }
        let toServer = Pipe()
        let fromServer = Pipe()
        let errors = Pipe()
        process.standardInput = toServer
        process.standardOutput = fromServer
        process.standardError = errors
        let output = Locked(Data())
        errors.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            output.withLock { log in
                log.append(data)
                if log.count > 64 << 10 { log.removeFirst(log.count - (32 << 10)) }
            }
        }
        do {
            try process.run()
        } catch {
            throw MCPServerError(code: .startFailed, message: "MCP server \(command.name) could not start \(command.arguments.joined(separator: " ")): \(error)")
        }
        let transport = StdioTransport(
            input: FileDescriptor(rawValue: fromServer.fileHandleForReading.fileDescriptor),
            output: FileDescriptor(rawValue: toServer.fileHandleForWriting.fileDescriptor), logger: logger)
        let client = Client(name: "chatbotkit", version: "1.0")
        let watch = ExitWatch(process: process, name: command.name, output: output, client: client)
        do {
            let listed = try await watch.race(timeout: timeout, doing: "starting") {
                try await client.connect(transport: transport)
                return try await client.listTools().tools
            }
            let tools = listed.map { tool(for: $0, client: client, watch: watch, callTimeout: callTimeout) }
            return MCPServer(command: command, tools: tools, client: client, process: process, output: output)
        } catch {
            if process.isRunning { process.terminate() }
            throw error
        }
    }

    /// Whether the server still runs.
    public var isRunning: Bool { process.isRunning }

    /// The server's process id.
    public var processIdentifier: Int32 { process.processIdentifier }

    /// What the server printed to its standard error lately.
    public var log: String { output.withLock { String(decoding: $0, as: UTF8.self) } }

    /// Disconnects and stops the server.
    public func stop() async {
        await client.disconnect()
        if process.isRunning {
            process.terminate()
            // A server that ignores SIGTERM (or is stuck in a call) must not hold the bot's shutdown.
            let deadline = ContinuousClock.now + .seconds(2)
            while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    /// One of the server's tools as an ``AnyTool``: the model's arguments go as they are, the
    /// text of the result comes back.
    static func tool(for tool: MCP.Tool, client: Client, watch: ExitWatch, callTimeout: Duration) -> AnyTool {
        let schema = (try? JSONParser().parse(JSONEncoder().encode(tool.inputSchema))) ?? ["type": "object", "properties": [:]]
        let definition = ToolDefinition(name: tool.name, description: tool.description ?? tool.title ?? tool.name, parameters: schema)
        return AnyTool(definition: definition) { arguments, _ in
            let values: [String: Value]
            do {
                let text = arguments.trimmingCharacters(in: .whitespacesAndNewlines)
                values = try JSONDecoder().decode([String: Value].self, from: Data((text.isEmpty ? "{}" : text).utf8))
            } catch {
                return .error("arguments: not a JSON object (\(error))")
            }
            let (content, isError): (content: [MCP.Tool.Content], isError: Bool?) = try await watch.race(
                timeout: callTimeout, doing: "calling \(tool.name)"
            ) {
                try await client.callTool(name: tool.name, arguments: values)
            }
            let text = content.map { item -> String in
                if case .text(let text, _, _) = item { return text }
                return (try? String(decoding: JSONEncoder().encode(item), as: UTF8.self)) ?? ""
            }.joined(separator: "\n")
            return ToolOutput(text, isError: isError ?? false)
        }
    }
}
