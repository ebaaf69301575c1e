import ChatBotKitConfiguration
import ChatBotKit
import ChatClient
import ChatModels
import Foundation

extension DoctorCommand {
    /// The event types a bot taking its events by webhook needs: new messages, edits,
    /// deletions, truncations, and the memberships it follows.
    static let webhookEventsBotsNeed = [
        "message.new", "message.updated", "message.deleted", "channel.truncated", "channel.deleted", "member.added", "member.removed",
    ]

    /// For bots with `events: webhook`: whether the app posts its events where `bots run` takes
    /// them. The embedded server's app is pointed there at start; the hosted service's must be
    /// set by hand, to a public address this machine cannot know, so only its absence fails,
    /// and event types the bots need but the app leaves out are noted.
    func checkWebhook(_ settings: AppSettings, _ configuration: BotsConfiguration, _ checkup: Checkup) {
        let bots = configuration.bots.filter { $0.events == .webhook }
        guard let endpoint = configuration.webhook, !bots.isEmpty else { return }
        let names = bots.map(\.name).joined(separator: ", ")
        let local = Self.address(of: endpoint, path: endpoint.path)
        let posted = settings.raw["webhook_url"]?.stringValue ?? ""
        if configuration.server.url == nil {
            checkup.report(.ok, "webhook", "\(BotsCLI.commandName) run takes the app's events at \(local) for \(names), and points the dev server's webhook_url there")
            return
        }
        guard !posted.isEmpty else {
            checkup.report(
                .fail, "webhook",
                "the app has no webhook_url, so \(names) would get no events; set it (Dashboard or PATCH /app) to the public https address that reaches \(local)")
            return
        }
        let picked = (settings.raw["webhook_events"]?.arrayValue ?? []).compactMap(\.stringValue)
        let missing = picked.isEmpty ? [] : Self.webhookEventsBotsNeed.filter { !picked.contains($0) }
        let compression = settings.raw["webhook_compression_algorithm"]?.stringValue == "gzip" ? ", gzipped" : ""
        let types = picked.isEmpty ? "every event" : "\(picked.count) event types"
        let detail = "the app posts \(types)\(compression) to \(posted); \(BotsCLI.commandName) run takes them at \(local) for \(names)"
        if missing.contains("message.new") {
            checkup.report(.fail, "webhook", "\(detail), but webhook_events leaves out message.new: the bots would get no messages; add it, or empty the list for every type")
        } else if !missing.isEmpty {
            checkup.report(.note, "webhook", "\(detail); webhook_events leaves out \(missing.joined(separator: ", ")), which the bots' edit, deletion and membership handling needs")
        } else {
            checkup.report(.ok, "webhook", detail)
        }
    }

    /// `http://host:port/path` of the webhook server `bots run` serves at `endpoint`, for the
    /// doctor's lines (a port of 0 is any free one, known only once it runs).
    static func address(of endpoint: BotsConfiguration.WebhookEndpoint, path: String) -> String {
        "http://\(endpoint.host):\(endpoint.port == 0 ? "<any free port>" : String(endpoint.port))\(path)"
    }
}
