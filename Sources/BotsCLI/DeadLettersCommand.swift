import ArgumentParser
import ChatBotKit
import ChatBotKitConfiguration
import ChatModels
import Foundation

/// `bots dead-letters list|retry|drop`: the deliveries a bot gave up on (a handler's own error,
/// a refusal, an outage longer than `outage_tolerance`), kept in `dead-letters/<bot>.jsonl`.
struct DeadLettersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dead-letters", abstract: "List, run again or drop the messages a bot gave up on.",
        subcommands: [List.self, Retry.self, Drop.self])

    /// `--config` and `--bot`: whose dead letters.
    struct Selection: ParsableArguments {
        @OptionGroup var options: ConfigOptions

        @Option(help: "The bot (default: every bot of the configuration).")
        var bot: String?

        /// The dead-letter files of the chosen bots, by bot name.
        func files() throws -> [(String, DeadLetterFile)] {
            let configuration = try options.load()
            let entries = configuration.bots.filter { bot == nil || $0.name == bot }
            if let bot, entries.isEmpty {
                throw ValidationError("no bot named \(bot) in \(options.config); its bots are \(configuration.bots.map(\.name).joined(separator: ", "))")
            }
            return entries.map { ($0.name, DeadLetterFile(file: configuration.deadLetterFile(for: $0))) }
        }
    }

    /// `bots dead-letters list`: one line per letter.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the dead letters: key, channel, reason, attempts, error.")

        @OptionGroup var selection: Selection

        func run() throws {
            var total = 0
            for (bot, file) in try selection.files() {
                for letter in try letters(file) {
                    total += 1
                    let error = letter.error.split(separator: "\n").first.map(String.init) ?? ""
                    say("\(bot)\t\(letter.key)\t\(letter.cid)\t\(letter.reason)\t\(counted(letter.attempts, "attempt"))\t\(error)")
                }
            }
            if total == 0 { say("no dead letters") }
        }
    }

    /// `bots dead-letters retry [key ...]`: hands letters to the running bot (or its next start).
    struct Retry: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run dead letters again: the running bot (or its next start) takes them within a second.")

        @OptionGroup var selection: Selection

        @Argument(help: "The keys of the letters (default: all of them).")
        var keys: [String] = []

        func run() throws {
            for (bot, file) in try selection.files() {
                let retried = try change(file) { try file.retry(keys.isEmpty ? nil : Set(keys)) }
                if !retried.isEmpty { say("\(bot): \(counted(retried.count, "dead letter")) to run again") }
            }
        }
    }

    /// `bots dead-letters drop [key ...]`: forgets letters.
    struct Drop: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget dead letters.")

        @OptionGroup var selection: Selection

        @Argument(help: "The keys of the letters (default: all of them).")
        var keys: [String] = []

        func run() throws {
            for (bot, file) in try selection.files() {
                let dropped = try change(file) { try file.drop(keys.isEmpty ? nil : Set(keys)) }
                if !dropped.isEmpty { say("\(bot): \(counted(dropped.count, "dead letter")) dropped") }
            }
        }
    }
}

/// The letters of `file`, or its error as one the terminal shows.
private func letters(_ file: DeadLetterFile) throws -> [DeadLetter] {
    do {
        return try file.letters()
    } catch let error as BotError {
        throw ValidationError(error.message)
    }
}

/// Runs `body` on a file that is known to read.
private func change(_ file: DeadLetterFile, _ body: () throws -> [DeadLetter]) throws -> [DeadLetter] {
    _ = try letters(file)
    return try body()
}
