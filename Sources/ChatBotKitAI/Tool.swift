import ChatBotKit
import ChatModels

/// A tool a model can call: a Swift type whose arguments are a `Decodable` type.
///
/// ```swift
/// struct WeekTotals: Tool {
///     struct Arguments: Decodable, Sendable { var weeksAgo: Int? }
///     static let name = "week_totals"
///     static let description = "The user's workout totals for a week."
///     func call(_ arguments: Arguments, context: ToolContext) async throws -> ToolOutput { … }
/// }
/// ```
/// The model is shown ``parameters``, derived from `Arguments` unless declared. Arguments that do
/// not decode go back to the model as the tool's error, naming the field and what is wrong
/// (the errors attachments get), so it can call again.
public protocol Tool: Sendable {
    /// The arguments the model sends.
    associatedtype Arguments: Decodable & Sendable
    /// The name the model calls it by (letters, digits, `_` and `-`).
    static var name: String { get }
    /// What it does, for the model.
    static var description: String { get }
    /// The JSON schema of `Arguments` the model is shown; nil (the default) derives it from the
    /// type. Declared, it can carry descriptions; test that it agrees with the type
    /// (``ToolBox/schemaDifferences(of:)``).
    static var parameters: JSONSchema? { get }
    /// Runs the tool.
    func call(_ arguments: Arguments, context: ToolContext) async throws -> ToolOutput
}

extension Tool {
    /// None declared: the schema is derived from `Arguments`.
    public static var parameters: JSONSchema? { nil }
}

/// What a tool gets besides its arguments: the message being answered (when the tool runs for a
/// chat reply).
public struct ToolContext: Sendable {
    /// The handler's context, when the tool runs for a chat message.
    public let bot: BotContext?

    /// A context.
    public init(bot: BotContext?) {
        self.bot = bot
    }

    /// The id of the user who asked, when there is one.
    public var userId: String? { bot?.message.user?.id }
}

/// What a tool gives back: text for the model, and payloads for the reply.
public struct ToolOutput: Sendable {
    /// What the model reads (plain text or JSON text).
    public var content: String
    /// Custom payloads the reply carries (a summary card, say).
    public var attachments: [AnyAttachmentPayload]
    /// Whether the call failed (the model reads `content` as the error).
    public var isError: Bool

    /// An output.
    public init(_ content: String, attachments: [AnyAttachmentPayload] = [], isError: Bool = false) {
        self.content = content
        self.attachments = attachments
        self.isError = isError
    }

    /// JSON for the model.
    public init(json: RawJSON, attachments: [AnyAttachmentPayload] = []) {
        self.init(JSONWriter.string(json), attachments: attachments)
    }

    /// An error the model reads, to call again or tell the user.
    public static func error(_ message: String) -> ToolOutput {
        ToolOutput(JSONWriter.string(["error": .string(message)]), isError: true)
    }
}
