import ChatBotKitConfiguration
import ArgumentParser
import ChatBotKit
import ChatClient
import ChatModels
import Foundation

/// `bots replay capture.jsonl`: what people did in a channel, recorded with `bots events --json`
/// (on the hosted service, say), done again on another server (the dev server, say), so the
/// bots there meet it as they met it then.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a capture of `bots events --json` on the configured server: messages, edits, reactions and deletions, as their users.",
        discussion: """
            The bots' own messages are left out (they answer again); link previews too (the server \
            makes them again). File links are sent as recorded: a file behind a link the target \
            server cannot open (an expired one of another server) stays out of the bots' reach. \
            A capture with a line that is not an event is refused whole (exit 65).
            """)

    @OptionGroup var options: ConfigOptions

    @Argument(help: "The capture: one event per line, as `bots events --json` prints them.")
    var capture: String

    @Option(help: "Replay everything into this channel, type:id (default: each event's own channel).")
    var channel: ChannelId?

    @Option(help: "Wait between calls as long as the events were apart, divided by this (0: do not wait).")
    var speed: Double = 0

    @Option(help: "What replayed message ids end with, after a '-' (default: random, so a capture can be replayed again).")
    var idSuffix: String?

    @Flag(help: "Keep the recorded message ids (on a server that has none of them yet).")
    var keepIds = false

    @Flag(help: "Also replay the messages of the configuration's bots.")
    var includeBots = false

    @Flag(help: "Print what would be done, and do nothing.")
    var dryRun = false

    func validate() throws {
        guard speed >= 0 else { throw ValidationError("--speed must be 0 or more") }
        if keepIds, idSuffix != nil { throw ValidationError("give --keep-ids or --id-suffix, not both") }
        if let idSuffix, idSuffix.isEmpty || !ChannelId.isValidPart(idSuffix) {
            throw ValidationError("--id-suffix may only use letters, digits, '-' and '_'")
        }
    }

    func run() async throws {
        let recorded: EventCapture
        do {
            recorded = try EventCapture(contentsOf: URL(fileURLWithPath: capture))
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(65)
        }
        let configuration = try options.load()
        let bots = includeBots ? [] : Set(configuration.bots.map(\.user))
        let plan = ReplayPlan(recorded, channel: channel, skippingUsers: bots)
        let suffix = keepIds ? "" : (idSuffix ?? String(UUID().uuidString.lowercased().prefix(6)))
        let channels = Set(plan.steps.map(\.cid.rawValue)).sorted()
        say(
            "\(dryRun ? "Would replay" : "Replaying") \(capture): \(counted(plan.steps.count, "call")) into "
                + (channels.isEmpty ? "no channel" : channels.joined(separator: ", "))
                + (suffix.isEmpty ? ", with the recorded ids" : ", message ids ending in -\(suffix)"))
        for (reason, count) in plan.skipped { say("  skipped: \(reason) (\(count))") }
        if dryRun {
            for step in plan.steps { say(Self.describe(step, messageId: ReplayPlan.replayedId(of: step.action.messageId, suffix: suffix))) }
            return
        }
        let client = options.client(as: "replay", in: configuration)
        try await options.reaching(configuration) {
            try await client.replay(plan, idSuffix: suffix, speed: speed) { step, messageId in say(Self.describe(step, messageId: messageId)) }
        }
        say("Replayed \(counted(plan.steps.count, "call")).")
    }

    /// One line per call: `line 4: alice sent m-1-3f9a1c in messaging:general [workout]`.
    static func describe(_ step: ReplayPlan.Step, messageId: String) -> String {
        let who = step.userId ?? "the server"
        let what =
            switch step.action {
            case .send(_, let text, let attachments, let parentId, _, _, _, _, _):
                "sent \(messageId)\(parentId == nil ? "" : " (a thread reply)") in \(step.cid.rawValue)"
                    + (text.isEmpty ? "" : ": \(text.prefix(60))")
                    + (attachments.isEmpty ? "" : " [\(attachments.map { $0["type"]?.stringValue ?? "?" }.joined(separator: ", "))]")
            case .edit: "edited \(messageId)"
            case .delete(_, let hard): "\(hard ? "hard-" : "")deleted \(messageId)"
            case .react(_, let type, _, _): "reacted \(type) to \(messageId)"
            case .unreact(_, let type): "took back \(type) from \(messageId)"
            }
        return "line \(step.line): \(who) \(what)"
    }
}
