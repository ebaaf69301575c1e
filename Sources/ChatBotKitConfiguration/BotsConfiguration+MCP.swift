import ChatBotKit

extension BotsConfiguration {
    /// An MCP server whose tools a bot's model may call: a stdio command, in a bot's `mcp:` list.
    ///
    /// ```yaml
    ///     mcp:
    ///       - name: time
    ///         command: [.venv/bin/mcp-server-time, --local-timezone, UTC]
    ///       - name: sqlite
    ///         command: [mcp-server-sqlite, --db-path, .bots/workout/workouts.sqlite]
    ///         env: { LOG_LEVEL: warning }
    /// ```
    public struct MCPServerSettings: Sendable, Equatable {
        /// The server's name, for errors and logs.
        public var name: String
        /// The executable (looked up in `PATH`) and its arguments.
        public var command: [String]
        /// Variables added to its environment.
        public var environment: [String: String]
    }

    /// The servers of a bot's `mcp:` list (none without one).
    public static func parseMCPServers(_ node: ConfigNode?) throws(ConfigurationError) -> [MCPServerSettings] {
        guard let node else { return [] }
        var servers: [MCPServerSettings] = []
        for entry in try node.sequence() {
            try entry.allowOnly(["name", "command", "env"])
            let name = try entry.required("name").string()
            let commandNode = try entry.required("command")
            let command = try commandNode.strings()
            guard !command.isEmpty else { throw commandNode.error(.badValue, "mcp server \(name) needs a command: [executable, arguments...]") }
            var environment: [String: String] = [:]
            for (key, value) in try entry["env"]?.mapping() ?? [] { environment[key] = try value.string() }
            if servers.contains(where: { $0.name == name }) {
                throw try entry.required("name").error(.badValue, "two mcp servers are named \"\(name)\"; names must be unique")
            }
            servers.append(MCPServerSettings(name: name, command: command, environment: environment))
        }
        return servers
    }
}
