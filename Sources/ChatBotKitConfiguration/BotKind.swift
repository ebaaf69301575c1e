import ChatBotKit
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
    /// Messages worth sending to a bot of this kind, which `bots run` prints as `bots send`
    /// command lines for its user to try; none by default.
    static var samples: [BotKindSample] { get }
}

extension BotKind {
    /// None.
    public static var samples: [BotKindSample] { [] }
}

/// A message worth sending to a bot of some kind, as the options of `bots send`.
public struct BotKindSample: Sendable, Hashable {
    /// The options after `--config`, `--channel` and `--user`: `--text /workouts`.
    public var arguments: String
    /// The custom command the message calls, if it does: it is printed only when the bots'
    /// custom commands are answered (bots.yaml has a `webhook:` section).
    public var customCommand: String?

    /// A sample.
    public init(_ arguments: String, customCommand: String? = nil) {
        self.arguments = arguments
        self.customCommand = customCommand
    }
}

/// What a bot kind may use while building its bot.
public struct BotKindEnvironment: Sendable {
    /// A folder for the bot's own files (databases, archives), created on demand.
    public var dataDirectory: URL
    /// A logger.
    public var logger: Logger
    /// When set, every path the configuration gives is taken inside this folder (`bots
    /// simulate` sets it, so a simulation never touches the files a real run uses).
    public var pathRoot: URL?
    /// The model at the top of `bots.yaml` (`llm:`), if any; ``model(for:)`` adds a bot's own.
    public var llm: BotsConfiguration.ModelSettings?
    /// The user ids of the other bots of the same `bots.yaml`. They join their channels as
    /// their connections come up, so a bot that greets new members sees them join too; a
    /// greeting is for people.
    public var fellowBots: Set<String>

    /// An environment (a bot kind's tests need only the folder).
    public init(
        dataDirectory: URL, logger: Logger = Logger(label: "bots"), pathRoot: URL? = nil, llm: BotsConfiguration.ModelSettings? = nil,
        fellowBots: Set<String> = []
    ) {
        self.dataDirectory = dataDirectory
        self.logger = logger
        self.pathRoot = pathRoot
        self.llm = llm
        self.fellowBots = fellowBots
    }

    /// A path from the configuration, relative to the folder the run started in, or `fallback`
    /// inside ``dataDirectory`` when it is not given; inside ``pathRoot`` when that is set.
    public func path(_ node: ConfigNode?, default fallback: String) throws(ConfigurationError) -> URL {
        guard let node else { return dataDirectory.appendingPathComponent(fallback) }
        return Self.resolve(try node.string(), under: pathRoot)
    }

    /// `path` as the configuration means it (relative to the folder the run started in), or
    /// the same path taken inside `root`: `data/x` and `/srv/x` become `root/data/x` and
    /// `root/srv/x`.
    public static func resolve(_ path: String, under root: URL?) -> URL {
        guard let root else {
            return path.hasPrefix("/") ? URL(fileURLWithPath: path) : URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(path)
        }
        let parts = path.split(separator: "/").filter { $0 != "." && $0 != ".." }
        return parts.reduce(root) { $0.appendingPathComponent(String($1)) }
    }
}
