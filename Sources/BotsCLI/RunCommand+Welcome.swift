import ChatBotKit
import ChatBotKitConfiguration
import ChatClient
import ChatModels
import Foundation
import Logging

extension RunCommand {
    static func printWelcome(
        _ configuration: BotsConfiguration, bots: [BotsConfiguration.BotEntry], schedules: [String: [String: Schedule]] = [:], baseURL: URL,
        metricsURL: URL?, webhookURL: URL?, devServer: Bool, customCommands: [String] = [], commandsURL: String? = nil, config: String,
        watch: Bool
    ) {
        // First, the one address a newcomer needs: the page that talks to the bots.
        if devServer {
            say(
                configuration.embedded.acceptsDevTokens
                    ? "Playground: \(baseURL.absoluteString)/  (open it in a browser to talk to the bots)"
                    : "Playground: off (it is served in dev mode only: set embedded.dev_tokens: true in \(config))")
        }
        say(devServer ? "Dev server: \(baseURL.absoluteString)  (API key \(configuration.server.apiKey))" : "Server: \(baseURL.absoluteString)")
        if let metricsURL { say("Metrics: \(metricsURL.absoluteString)") }
        if let scaleOut = configuration.scaleOut {
            say("Scaled out: node \(scaleOut.nodeName) shares each bot's channels with the other nodes (leases of \(DurationText.format(scaleOut.lease)))")
        }
        if let webhookURL { say("Webhook: \(webhookURL.absoluteString)\(devServer ? " (the dev server posts the app's events here)" : "")") }
        if let commandsURL, !customCommands.isEmpty {
            say(
                "Custom commands: \(customCommands.map { "/" + $0 }.joined(separator: ", ")) answered at \(commandsURL)"
                    + (devServer ? " (the dev server's custom_action_handler_url)" : ""))
        }
        for bot in bots {
            let transport = bot.events == .webhook ? ", events by webhook" : ""
            let limit = bot.senderLimit.map { ", at most \($0.rate) from each sender" } ?? ""
            let scheduled = (schedules[bot.name] ?? [:]).sorted { $0.key < $1.key }.map { ", \($0.key) \($0.value)" }.joined()
            say("Bot \(bot.name) (\(bot.kind)) as \(bot.user) in \(bot.channels.map(\.rawValue).joined(separator: ", "))\(transport)\(limit)\(scheduled)")
        }
        let channel = bots.first?.channels.first?.rawValue ?? "messaging:general"
        // With `port: 0` the file does not say which port the server got; the commands must.
        let target = devServer && configuration.embedded.port == 0 ? "\(config) --server \(baseURL.absoluteString)" : config
        var samples: [BotKindSample] = []
        for kind in bots.compactMap({ BotsCLI.kinds[$0.kind] }) {
            for sample in kind.samples where !samples.contains(sample) && sample.customCommand.map(customCommands.contains) ?? true {
                samples.append(sample)
            }
        }
        if samples.isEmpty { samples = [BotKindSample("--text hello")] }
        let tool = BotsCLI.invocation
        let sends = samples.map { "  \(tool) send --config \(target) --channel \(channel) --user alice \($0.arguments)\n" }.joined()
        say("""
            Talk to them from another terminal:
            \(sends)  \(tool) chat --config \(target) --channel \(channel) --user alice     # a line per message, the answers as they come
              \(tool) events --config \(target) --channel \(channel) --user alice
            Edit \(config) and `kill -HUP \(ProcessInfo.processInfo.processIdentifier)` applies it without a restart\(watch ? " (or just save it: --watch is on)" : "").
            Ctrl-C stops everything.
            """)
    }
}
