import ChatBotKitConfiguration
import ArgumentParser
import ChatBotKit
import ChatLocking
import Foundation

/// The `bots` command line tool (`run`, `serve`, `send`, `simulate`, `doctor`, …) for your own
/// bot kinds: an executable of yours that calls ``main(kinds:commands:arguments:)`` is that
/// tool, its bots.yaml names your kinds, and it has your own subcommands beside the built-in ones.
///
/// ```swift
/// import BotsCLI
///
/// await BotsCLI.main(kinds: [Coach.self], commands: [Cheer.self])
/// ```
public enum BotsCLI {
    /// Runs the tool with `kinds` as the `kind:` values bots.yaml may name and `commands` as
    /// subcommands of its own (ArgumentParser commands; ``ConfigOptions`` gives one `--config`,
    /// `--server` and a client), on `arguments` (the process's own when nil), and exits the
    /// process with the command's status.
    ///
    /// Two kinds with one `BotKind.name`, or a command named as a built-in one or as another,
    /// are mistakes in the program, not in a bots.yaml: it says which and exits with status 70
    /// before anything runs.
    public static func main(kinds: [any BotKind.Type], commands: [any ParsableCommand.Type] = [], arguments: [String]? = nil) async {
        do {
            let named = try byName(kinds)
            let checked = try ownCommands(commands)
            registered.withLock { $0 = named }
            registeredCommands.withLock { $0 = checked }
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            exit(70)
        }
        await BotsCommand.parseAndRun(arguments)
    }

    /// `commands`, checked: each named apart from the built-in subcommands and from the others
    /// (a clash is a `bot.configuration` error naming both types).
    public static func ownCommands(_ commands: [any ParsableCommand.Type]) throws(BotError) -> [any ParsableCommand.Type] {
        var taken = Dictionary(uniqueKeysWithValues: BotsCommand.builtInCommands.map { ($0._commandName, "the built-in \($0._commandName)") })
        for command in commands {
            let name = command._commandName
            if let earlier = taken[name] {
                throw BotError(
                    code: .configuration, message: "the command \(command) is named \"\(name)\", as \(earlier) is; give it a commandName of its own")
            }
            taken[name] = "\(command)"
        }
        return commands
    }

    /// The subcommands given to ``main(kinds:commands:arguments:)``.
    static var commands: [any ParsableCommand.Type] { registeredCommands.withLock { $0 } }

    /// Set by ``main(kinds:commands:arguments:)`` (and by tests).
    static let registeredCommands = Locked<[any ParsableCommand.Type]>([])

    /// `kinds` by their `BotKind.name`; two with one name are a `bot.configuration` error
    /// naming both.
    public static func byName(_ kinds: [any BotKind.Type]) throws(BotError) -> [String: any BotKind.Type] {
        var named: [String: any BotKind.Type] = [:]
        for kind in kinds {
            if let earlier = named[kind.name] {
                throw BotError(code: .configuration, message: "two bot kinds are named \"\(kind.name)\": \(earlier) and \(kind); give each its own name")
            }
            named[kind.name] = kind
        }
        return named
    }

    /// The kinds given to ``main(kinds:commands:arguments:)``, by name.
    static var kinds: [String: any BotKind.Type] { registered.withLock { $0 } }

    /// Set by ``main(kinds:commands:arguments:)`` (and by tests, for kinds of their own).
    static let registered = Locked<[String: any BotKind.Type]>([:])

    /// The executable's own name, for help and usage texts (`coach run`).
    static var commandName: String {
        URL(fileURLWithPath: CommandLine.arguments.first ?? "bots").lastPathComponent
    }

    /// How to run this executable again from the current folder, for the commands `run` prints:
    /// `.build/debug/coach` when that is this executable, else its path as it was started.
    static var invocation: String {
        let started = CommandLine.arguments.first ?? "bots"
        guard started.contains("/") else { return started }
        let resolved = URL(fileURLWithPath: started).resolvingSymlinksInPath().path
        for configuration in ["debug", "release"] {
            let short = ".build/\(configuration)/\(commandName)"
            if URL(fileURLWithPath: short).resolvingSymlinksInPath().path == resolved { return short }
        }
        return started
    }
}
