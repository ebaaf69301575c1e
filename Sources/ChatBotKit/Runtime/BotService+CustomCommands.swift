import ChatClient
import ChatModels
import Foundation
import Logging

extension BotService {
    /// Registers the bot's custom commands with its intake, creates them on the app (or brings
    /// their description up to date) and offers them in the types of the bot's channels, so
    /// that a `/name …` there reaches the bot. Done at every start, and again when the bot is
    /// reconfigured: each step reads before it writes, and changes nothing that is already right.
    func setUpCustomCommands() async throws {
        let commands = bot.customCommands
        guard let intake = configuration.commands else {
            if !commands.isEmpty {
                logger.warning(
                    "Bot \(bot.name) answers custom commands (\(commands.map { "/" + $0.definition.name }.joined(separator: ", "))), but its service has no command intake; they go unanswered")
            }
            return
        }
        try intake.register(commands.map(gated), bot: bot.name, client: client)
        guard !commands.isEmpty else { return }
        let types = Set(channels.map(\.type)).sorted { $0.rawValue < $1.rawValue }
        do {
            for command in commands { try await client.defineCommand(command.definition) }
            for type in types { try await client.offerCommands(commands.map(\.definition.name), inChannelType: type) }
        } catch {
            throw BotError(
                code: .startFailed,
                message: "bot \(bot.name) could not set up its custom commands \(commands.map { "/" + $0.definition.name }.joined(separator: ", ")): \(error)",
                underlying: error)
        }
        logger.info(
            "Bot \(bot.name) answers custom commands",
            metadata: ["commands": "\(commands.map(\.definition.name))", "channel_types": "\(types.map(\.rawValue))"])
    }

    /// `command` as the intake runs it: through the bot's handler gate, like its other handlers
    /// (so a reconfiguration never runs beside it), and with the handler the bot has at the
    /// time (a reconfigured bot's, once it took its new configuration).
    private func gated(_ command: CustomCommand) -> CustomCommand {
        let name = command.definition.name
        return CustomCommand(definition: command.definition) { [bot, gate = pipeline.gate] request in
            let task = HandlerGate.currentTask()
            await gate.admit(task: task)
            defer { gate.leave(task: task) }
            guard let current = bot.customCommand(named: name) else {
                return .error("The /\(name) command is no longer answered here.")
            }
            return try await current.handler(request)
        }
    }
}
