import ChatBotKitConfiguration
import ChatBotKit
import ChatClient
import ChatModels
import Foundation

extension DoctorCommand {
    /// For bots that answer custom commands: whether the app sends them where `bots run` answers
    /// them. The embedded server's app is pointed there at start; the hosted service's
    /// `custom_action_handler_url` must be set by hand. Each gap is a note, not a failure: the
    /// bots handle their messages without it, and only their commands go unanswered. Commands
    /// the app does not have yet are noted too: each bot creates its own at start.
    func checkCustomCommands(_ settings: AppSettings, _ configuration: BotsConfiguration, bots: [(BotsConfiguration.BotEntry, Bot)], client: ChatClient, _ checkup: Checkup) async {
        let answering = bots.filter { !$0.1.customCommands.isEmpty }
        guard !answering.isEmpty else { return }
        let commands = answering.flatMap { $0.1.customCommands.map(\.definition.name) }
        let listed = "\(commands.map { "/" + $0 }.joined(separator: ", ")) (\(answering.map(\.0.name).joined(separator: ", ")))"
        guard let endpoint = configuration.webhook else {
            checkup.report(
                .note, "commands",
                "\(listed) would go unanswered: bots.yaml has no webhook: section, where \(BotsCLI.commandName) run takes custom commands; add one, such as webhook: { port: 8789 }")
            return
        }
        let local = Self.address(of: endpoint, path: endpoint.commandsPath + "/{type}")
        if configuration.server.url == nil {
            checkup.report(.ok, "commands", "\(BotsCLI.commandName) run answers \(listed) at \(local), and points the dev server's custom_action_handler_url there")
            return
        }
        let handler = settings.raw["custom_action_handler_url"]?.stringValue ?? ""
        guard !handler.isEmpty else {
            checkup.report(
                .note, "commands",
                "the app has no custom_action_handler_url, so \(listed) would go unanswered; set it (Dashboard or PATCH /app) to the public https address that reaches \(local)")
            return
        }
        let existing = (try? await client.commands().map(\.name)) ?? []
        let missing = commands.filter { !existing.contains($0) }
        let detail = "the app sends custom commands to \(handler); \(BotsCLI.commandName) run answers \(listed) at \(local)"
        if missing.isEmpty {
            checkup.report(.ok, "commands", detail)
        } else {
            checkup.report(.note, "commands", "\(detail); the app has no \(missing.map { "/" + $0 }.joined(separator: ", ")) yet, which the bots create when they start")
        }
    }
}
