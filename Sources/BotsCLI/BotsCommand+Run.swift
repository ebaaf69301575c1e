import ArgumentParser
import Foundation

extension BotsCommand {
    /// Parses `arguments` and runs the chosen subcommand, as `main(_:)` does, except for a
    /// `ValidationError` its `run()` throws (a bad `--attachment`, a bots.yaml that does not
    /// load, a message that is not there): ArgumentParser would print it with the root's usage
    /// (`Usage: bots <subcommand>`), which is not the command that was typed and says nothing
    /// about the mistake. It is printed with a pointer to the typed command's help instead, and
    /// the process exits with status 64 (a usage error), as a parse error does.
    static func parseAndRun(_ arguments: [String]?) async {
        var command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            exit(withError: error)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ValidationError {
            let help = (commandPath(to: type(of: command)) ?? [configuration.commandName ?? "bots"]) + ["--help"]
            FileHandle.standardError.write(Data("Error: \(error.message)\n  See '\(help.joined(separator: " "))' for more information.\n".utf8))
            exit(withError: ExitCode(64))
        } catch {
            exit(withError: error)
        }
    }

    /// The names from the root down to `target` (`["bots", "send"]`), or nil when `target` is
    /// not among the subcommands.
    static func commandPath(to target: any ParsableCommand.Type, from root: any ParsableCommand.Type = BotsCommand.self) -> [String]? {
        let name = root._commandName
        if root == target { return [name] }
        for subcommand in root.configuration.subcommands {
            if let path = commandPath(to: target, from: subcommand) { return [name] + path }
        }
        return nil
    }
}
