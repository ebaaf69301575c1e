/// The tools an assistant offers its model, by name.
public struct ToolBox: Sendable {
    /// The tools, in the order added.
    public private(set) var tools: [AnyTool] = []

    /// An empty tool box.
    public init() {}

    /// A tool box with `tools`.
    public init(_ tools: [AnyTool]) {
        for tool in tools { add(tool) }
    }

    /// Adds a ``Tool`` (its schema declared or derived); throws when the schema can be neither.
    public mutating func add<T: Tool>(_ tool: T) throws {
        add(try AnyTool(tool))
    }

    /// Adds a tool; one of the same name is replaced.
    public mutating func add(_ tool: AnyTool) {
        tools.removeAll { $0.name == tool.name }
        tools.append(tool)
    }

    /// The definitions the model is shown.
    public var definitions: [ToolDefinition] { tools.map(\.definition) }

    /// The tool named `name`.
    public func tool(named name: String) -> AnyTool? { tools.first { $0.name == name } }

    /// Calls the tool a model asked for; an unknown tool is an error for the model.
    public func call(_ call: ModelToolCall, context: ToolContext) async -> ToolOutput {
        guard let tool = tool(named: call.name) else {
            return .error("there is no tool named \(call.name); the tools are \(tools.map(\.name).joined(separator: ", "))")
        }
        return await tool.call(arguments: call.arguments, context: context)
    }

    /// Where the schema `T` declares differs from the one derived from its arguments' type
    /// (empty when they agree, or when it declares none); for a test beside the tool.
    public static func schemaDifferences<T: Tool>(of tool: T.Type) throws -> [String] {
        guard let declared = T.parameters else { return [] }
        return declared.differences(from: try JSONSchema.derived(from: T.Arguments.self))
    }
}
