import ArgumentParser
import Foundation
import Logging

/// `bots`: run chat bots, the embedded dev server, and talk to them from the terminal. Named
/// after the executable that runs it (``BotsCLI/main(kinds:commands:arguments:)``), so `coach
/// --help` says `coach`, and with that executable's own subcommands after the built-in ones.
struct BotsCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: BotsCLI.commandName,
            abstract: "Chat bots that live on message attachments, for services that speak the Stream Chat API.",
            subcommands: builtInCommands + BotsCLI.commands
        )
    }

    /// The subcommands every tool has.
    static let builtInCommands: [any ParsableCommand.Type] = [
        RunCommand.self, ServeCommand.self, SendCommand.self, ChatCommand.self, ReactCommand.self, TokenCommand.self, EventsCommand.self, ReplayCommand.self,
        SimulateCommand.self, DoctorCommand.self, DeadLettersCommand.self, InitCommand.self,
    ]
}

/// Writes a line to standard output at once (unbuffered), so a parent process reading it, such
/// as a test waiting for the server's address, sees each line as soon as it is written.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// `n` and `noun`, plural unless `n` is 1: `1 bot`, `3 bots`, `0 notes`.
func counted(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

/// Options every subcommand shares.
struct LoggingOptions: ParsableArguments {
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    func bootstrap() { Self.bootstrap(level: logLevel) }

    /// Logs to stderr at `level` and above.
    static func bootstrap(level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
