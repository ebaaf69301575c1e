import ChatModels
import Foundation
import Logging

/// A bot implementation that `bots.yaml` names by `kind:`. It reads its own options from its
/// entry (rejecting unknown ones, with line and column) and builds the bot.
///
/// ```swift
/// enum EchoKind: BotKind {
///     static let name = "echo"
///     static func makeBot(_ entry: BotsConfiguration.BotEntry, environment: BotKindEnvironment) throws -> Bot {
///         try entry.node.allowOnly(BotsConfiguration.commonBotKeys)
///         let bot = Bot(name: entry.name, user: User(id: entry.user))
///         bot.onMessage { context in try await context.reply(text: context.message.text) }
///         return bot
///     }
/// }
/// ```
public protocol BotKind {
    /// The `kind:` value.
    static var name: String { get }
    /// Checks the entry's options and builds the bot; configuration problems are
    /// ``ConfigurationError``s located in the file. It may be called only to check an entry (as
    /// `bots run --check` and a reload do, before applying anything), and again when the entry's
    /// options change while the bot runs: the bot built then replaces the running one's handlers.
    static func makeBot(_ entry: BotsConfiguration.BotEntry, environment: BotKindEnvironment) throws -> Bot
}

/// What a bot kind may use while building its bot.
public struct BotKindEnvironment: Sendable {
    /// A folder for the bot's own files (databases, archives), created on demand.
    public var dataDirectory: URL
    /// A logger.
    public var logger: Logger

    /// An environment.
    public init(dataDirectory: URL, logger: Logger) {
        self.dataDirectory = dataDirectory
        self.logger = logger
    }

    /// A path from the configuration, relative to the folder the run started in, or `fallback`
    /// inside ``dataDirectory`` when it is not given.
    public func path(_ node: ConfigNode?, default fallback: String) throws(ConfigurationError) -> URL {
        if let node {
            let text = try node.string()
            return text.hasPrefix("/") ? URL(fileURLWithPath: text) : URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(text)
        }
        return dataDirectory.appendingPathComponent(fallback)
    }
}
