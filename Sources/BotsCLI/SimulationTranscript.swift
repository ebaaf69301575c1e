import ChatBotKit
import ChatLocking
import ChatModels
import Foundation

/// What a `bots simulate` run saw: the message sent, how each bot's registry reads its
/// attachments, the channel's events from the send on, the handlers that failed, and how it
/// ended. Filled in from several tasks; printed once at the end.
final class SimulationTranscript: Sendable {
    private struct State {
        var events: [Event] = []
        var firstAfterSend: Int?
        var sent: Message?
        /// A custom command's answer to the sender alone: what was typed, and the answer.
        var ephemeral: (typed: String, answer: Message)?
        /// The button pressed on it, and what became of the message (nil: removed).
        var pressed: (button: String, result: Message?)?
        var readings: [(bot: String, lines: [String])] = []
        var failures: [(bot: String, message: String)] = []
        var outcome: Simulation.Outcome?
        /// Why the server refused the message before anyone saw it (a before-send hook).
        var refusal: String?
    }

    private let state = Locked(State())
    /// The simulating user, whose own joining is not news.
    let user: String

    init(user: String) { self.user = user }

    /// Records an event of the channel.
    func record(_ event: Event) { state.withLock { $0.events.append(event) } }

    /// How many events were recorded (the settling loop watches it grow).
    var eventCount: Int { state.withLock { $0.events.count } }

    /// Marks where the send starts: what came before is the set-up.
    func willSend() { state.withLock { $0.firstAfterSend = $0.events.count } }

    /// Records the sent message, as the server stored it, and how each of `bots` reads its attachments.
    func sent(_ message: Message, readBy bots: [Bot]) {
        let readings = bots.map { bot in (bot: bot.name, lines: message.attachments.map { Self.reading(of: $0, by: bot.registry) }) }
        state.withLock {
            $0.sent = message
            $0.readings = readings
        }
    }

    /// Records that the server refused the message before storing it, saying `reason` to its sender.
    func refused(_ reason: String) { state.withLock { $0.refusal = reason } }

    /// Records that a custom command answered `typed` with `answer`, shown to the sender alone.
    func answeredAlone(_ typed: String, with answer: Message) { state.withLock { $0.ephemeral = (typed, answer) } }

    /// Records the button pressed on the ephemeral answer and what it left (nil: removed).
    func pressed(_ button: String, result: Message?) { state.withLock { $0.pressed = (button, result) } }

    /// Records a handler of `bot` that threw.
    func failed(bot: String, _ error: BotError) { state.withLock { $0.failures.append((bot, error.message)) } }

    /// Records how the simulation ended (the first outcome counts).
    func finish(_ outcome: Simulation.Outcome) { state.withLock { $0.outcome = $0.outcome ?? outcome } }

    /// How it ended; nil if it never got that far.
    var outcome: Simulation.Outcome? { state.withLock { $0.outcome } }

    /// Whether a handler failed.
    var hasFailures: Bool { state.withLock { !$0.failures.isEmpty } }

    /// The channel's events from the send on, as JSON lines (a capture `bots replay` reads).
    var jsonLines: [String] {
        state.withLock { state in state.events.dropFirst(state.firstAfterSend ?? state.events.count).map { JSONWriter.string($0.json) } }
    }

    /// The report for people: the message, the readings, what happened, and a summary.
    var report: [String] {
        state.withLock { state in
            var lines: [String] = []
            if let (typed, answer) = state.ephemeral {
                let command = answer.command.map { "/" + $0 } ?? "its custom command"
                lines.append("\(user) sent \"\(typed)\"; \(command) answered \(user) alone: \(Message.describeWithButtons(answer))")
                switch state.pressed {
                case nil: lines.append("Nothing was posted (press a button with --press).")
                case (let button, nil)?: lines.append("\(user) pressed \(button): the message was removed, nothing posted.")
                case (let button, let result?)? where result.type == .ephemeral:
                    lines.append("\(user) pressed \(button): still for \(user) alone: \(Message.describeWithButtons(result))")
                case (let button, _)?: lines.append("\(user) pressed \(button):")
                }
            }
            if let refusal = state.refusal {
                lines.append("\(user)'s message was refused before anyone saw it; \(user) was told: \(refusal)")
                var counts = Counts()
                let happened = state.events.dropFirst(state.firstAfterSend ?? state.events.count).flatMap { describe($0, sentId: "", counts: &counts) }
                lines.append(happened.isEmpty ? "Nothing happened in the channel." : "What happened in the channel:")
                return lines + happened + state.failures.map { "  ✘ \($0.bot): \($0.message)" } + [counts.summary(failures: state.failures.count)]
            }
            guard let sent = state.sent else {
                guard state.ephemeral != nil else { return [] }
                return lines + state.failures.map { "  ✘ \($0.bot): \($0.message)" } + [Counts().summary(failures: state.failures.count)]
            }
            lines.append("\(state.ephemeral == nil ? "\(user) sent" : "  posted") \(Self.describe(sent)) to \(sent.cid?.rawValue ?? "the channel")")
            if !sent.attachments.isEmpty, !state.readings.isEmpty {
                lines.append("How the bots read its attachments:")
                let width = state.readings.map(\.bot.count).max() ?? 0
                for (bot, readings) in state.readings {
                    for reading in readings { lines.append("  \(bot.padding(toLength: width, withPad: " ", startingAt: 0))  \(reading)") }
                }
            }
            var counts = Counts()
            var happened: [String] = []
            for event in state.events.dropFirst(state.firstAfterSend ?? state.events.count) {
                happened += describe(event, sentId: sent.id, counts: &counts)
            }
            lines.append(happened.isEmpty ? "Nothing happened in the channel." : "What happened in the channel:")
            lines += happened
            lines += state.failures.map { "  ✘ \($0.bot): \($0.message)" }
            lines.append(counts.summary(failures: state.failures.count))
            return lines
        }
    }

    /// How a registry reads one attachment: its payload type, unknown, or the failure.
    static func reading(of attachment: AnyChatMessageAttachment, by registry: AttachmentPayloadRegistry) -> String {
        switch registry.decode(attachment) {
        case .decoded(let payload, _): "\(attachment.type.rawValue): \(String(describing: type(of: payload)))"
        case .unknown: "\(attachment.type.rawValue): no payload type registered (its onUnknownAttachment handlers see it)"
        case .failed(let failure): "\(attachment.type.rawValue): does not decode: \(failure.message)"
        }
    }

    private struct Counts {
        var messages = 0, edits = 0, deletions = 0, reactions = 0, other = 0

        func summary(failures: Int) -> String {
            let parts = [counted(messages, "message"), counted(edits, "edit"), counted(deletions, "deletion"), counted(reactions, "reaction")]
                + (other > 0 ? [counted(other, "other event")] : [])
            return parts.joined(separator: ", ") + "; " + (failures == 0 ? "no handler failed" : "\(counted(failures, "handler")) failed")
        }
    }

    /// The lines for one event (none for the noise of a live channel: typing, reads, health
    /// checks, copies in notifications, the sender joining).
    private func describe(_ event: Event, sentId: String, counts: inout Counts) -> [String] {
        let actor = event.user?.id ?? event.message?.user?.id ?? "someone"
        func which(_ id: String?) -> String { id == sentId ? "the sent message" : "message \(id ?? "?")" }
        func capitalized(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }
        switch event.type {
        case .messageNew:
            guard let message = event.message, message.id != sentId else { return [] }
            counts.messages += 1
            let place = message.parentId.map { " in the thread of \(which($0))" } ?? message.quotedMessageId.map { " quoting \(which($0))" } ?? ""
            return ["  \(message.user?.id ?? actor) wrote\(place):"] + Self.body(of: message)
        case .messageUpdated:
            guard let message = event.message else { return [] }
            counts.edits += 1
            return ["  \(actor) edited \(which(message.id)):"] + Self.body(of: message)
        case .messageDeleted:
            counts.deletions += 1
            // The event's user is the message's author unless a server call named who deleted it.
            let by = event.user.flatMap { $0.id == event.message?.user?.id ? nil : " by \($0.id)" } ?? ""
            return ["  \(capitalized(which(event.message?.id))) was deleted\(by)\(event.hardDelete == true ? " (hard delete)" : "")"]
        case .reactionNew, .reactionUpdated, .reactionDeleted:
            counts.reactions += 1
            let verb = event.type == .reactionDeleted ? "took back the reaction" : "reacted"
            return ["  \(actor) \(verb) \(event.reaction?.type ?? "?") on \(which(event.reaction?.messageId ?? event.message?.id))"]
        case .memberAdded where event.member?.userId == user || event.user?.id == user:
            return []
        case .healthCheck, .typingStart, .typingStop, .messageRead, .notificationMessageNew, .notificationMarkRead, .userWatchingStart,
            .userWatchingStop:
            return []
        default:
            counts.other += 1
            return ["  \(event.type.rawValue)" + (event.user.map { " (\($0.id))" } ?? "")]
        }
    }

    /// A message's text, line by line, and its attachments, indented under its heading.
    private static func body(of message: Message) -> [String] {
        let text = message.text.isEmpty ? [] : message.text.split(separator: "\n", omittingEmptySubsequences: false).map { "    \($0)" }
        let attachments = message.attachments.map(label)
        return text + (attachments.isEmpty ? [] : ["    [\(attachments.joined(separator: ", "))]"])
    }

    /// The sent message in one line: its text (shortened) and its attachments.
    private static func describe(_ message: Message) -> String {
        let text = message.text.count > 60 ? message.text.prefix(57) + "..." : message.text
        let parts = (text.isEmpty ? [] : ["\"\(text)\""]) + (message.attachments.isEmpty ? [] : ["[\(message.attachments.map(label).joined(separator: ", "))]"])
        return parts.joined(separator: " ")
    }

    /// An attachment's type and title (a file's name).
    private static func label(_ attachment: AnyChatMessageAttachment) -> String {
        let title = (try? JSONParser().parse(attachment.payload))?.objectValue?["title"]?.stringValue
        return attachment.type.rawValue + (title.map { " \($0)" } ?? "")
    }
}
