import ChatModels
import Foundation

/// A tool of any kind, as the assistant calls it: a ``Tool`` type, or an MCP server's tool.
public struct AnyTool: Sendable {
    /// How the model is shown it.
    public let definition: ToolDefinition
    private let invoke: @Sendable (String, ToolContext) async -> ToolOutput

    /// A tool from its definition and what runs it (with the model's arguments as JSON text);
    /// what it throws goes back to the model as its error.
    public init(definition: ToolDefinition, invoke: @escaping @Sendable (String, ToolContext) async throws -> ToolOutput) {
        self.definition = definition
        self.invoke = { arguments, context in
            do {
                return try await invoke(arguments, context)
            } catch is CancellationError {
                return .error("the call was cancelled")
            } catch let error as any CustomStringConvertible {
                return .error("\(definition.name) failed: \(error.description)")
            } catch {
                return .error("\(definition.name) failed: \(error)")
            }
        }
    }

    /// `tool`, its schema declared or derived; throws when it is neither declared nor derivable.
    public init<T: Tool>(_ tool: T) throws {
        let schema = try T.parameters ?? JSONSchema.derived(from: T.Arguments.self)
        self.init(definition: ToolDefinition(name: T.name, description: T.description, parameters: schema.json)) { arguments, context in
            let decoded: T.Arguments
            switch ToolArguments.decode(T.Arguments.self, from: arguments) {
            case .success(let value): decoded = value
            case .failure(let problem): return .error(problem.description)
            }
            return try await tool.call(decoded, context: context)
        }
    }

    /// The tool's name.
    public var name: String { definition.name }

    /// Runs the tool on `arguments` (JSON text); failures are outputs with ``ToolOutput/isError``.
    public func call(arguments: String, context: ToolContext) async -> ToolOutput {
        await invoke(arguments, context)
    }
}

/// What is wrong with a model's arguments, as the model is told: the field path and the reason.
public struct ToolArgumentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `arguments.distance: expected a number, found a string`.
    public let description: String
}

/// Decoding of a model's arguments, with the errors attachments get.
public enum ToolArguments {
    /// The arguments, or what is wrong with them: `arguments.distance: expected a number, found
    /// a string`, `arguments.period: required field is missing`, or where the JSON breaks off.
    public static func decode<T: Decodable>(_ type: T.Type, from text: String) -> Result<T, ToolArgumentError> {
        let source = text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? "{}" : text
        do {
            return .success(try RawJSONDecoder().decode(T.self, from: Data(source.utf8)))
        } catch let error as DecodingError {
            let (path, reason) = AttachmentDecodingFailure.describe(error)
            let field = path.isEmpty ? "arguments" : "arguments.\(path)"
            return .failure(ToolArgumentError(description: "\(field): \(reason)"))
        } catch {
            return .failure(ToolArgumentError(description: "arguments: \(error)"))
        }
    }
}
