import ChatBotKitWebhooks
import ChatBotKitConfiguration
import ChatBotKit
import ChatClient
import ChatDevServer
import ChatLocking
import ChatModels
import Foundation
import Logging
import ServiceLifecycle

/// What `bots simulate` does once its private dev server listens: starts the bots, sends the
/// message as the simulating user, and records what happens in the channel until the bots
/// have settled (nothing queued or being handled, and nothing new for `quietPeriod`).
struct Simulation: Service {
    /// The message to send.
    struct Input: Sendable {
        var user: String
        var channel: ChannelId
        var text: String
        var attachments: [AnyAttachmentPayload]
        /// The button to press when a custom command answers with buttons (its value).
        var press: String?
    }

    /// How it went.
    enum Outcome: Sendable {
        /// The bots settled this long after the send.
        case settled(after: Duration)
        /// Some bots still had work queued or running at the deadline.
        case busy(bots: [String], after: Duration)
        /// The bots could not start, or the message could not be sent (the reason).
        case failed(String)
    }

    let server: DevServer
    let bots: [(BotsConfiguration.BotEntry, Bot)]
    let configuration: BotsConfiguration
    /// Where every path of the configuration is taken (the bots' checkpoints too).
    let pathRoot: URL
    let input: Input
    let quietPeriod: Duration
    let timeout: Duration
    let transcript: SimulationTranscript
    let logger: Logger

    func run() async throws {
        // A signal ends the simulation where it is; the bots still stop gracefully below.
        await cancelWhenGracefulShutdown { await simulate() }
    }

    private func simulate() async {
        let url: URL
        do {
            url = try await server.baseURL()
        } catch {
            return transcript.finish(.failed("the dev server did not start: \(error)"))
        }
        // Bots with `events: webhook` take their events from a webhook of the private server's
        // app, and bots with custom commands answer them there, as `bots run` gives them, on a free port.
        let judgesBeforeSending = bots.contains { $0.1.judgesBeforeSending }
        let needsWebhook = bots.contains { $0.0.events == .webhook || !$0.1.customCommands.isEmpty } || judgesBeforeSending
        let webhook = needsWebhook ? configuration.webhookServer(at: .init(port: 0), logger: logger) : nil
        // A simulation reports a failure at once: there is no outage of its own server to wait out,
        // and a link nothing answers at (a dead CDN, say) would otherwise be retried for minutes.
        let oneShot = bots.map { entry, bot in
            var entry = entry
            entry.outageTolerance = .zero
            return (entry, bot)
        }
        let runner = RunCommand.runner(
            for: oneShot, configuration: configuration, baseURL: url, pathRoot: pathRoot, intake: webhook?.intake, commands: webhook?.commands,
            logger: logger)
        let services: [any Service] = [webhook].compactMap { $0 } + [runner]
        let botGroup = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [], logger: logger))
        await withDiscardingTaskGroup { group in
            group.addTask { try? await botGroup.run() }
            do {
                if let webhook {
                    webhook.beforeSend?.follow(runner)
                    try await configuration.pointApp(
                        on: url, at: try await webhook.url(), commands: try await webhook.commandsURL(),
                        beforeSend: judgesBeforeSending ? try await webhook.beforeSendURL() : nil)
                }
                try await runner.waitUntilReady()
                transcript.finish(try await sendAndObserve(on: url, runner: runner))
            } catch is CancellationError {
                transcript.finish(.failed("interrupted"))
            } catch {
                transcript.finish(.failed("\(error)"))
            }
            await botGroup.triggerGracefulShutdown()
        }
    }

    /// Sends the message and watches the channel as its sender until the bots settle.
    private func sendAndObserve(on url: URL, runner: BotRunner) async throws -> Outcome {
        let client = configuration.client(as: input.user, at: url)
        try await client.upsertUsers([User(id: input.user, name: input.user.capitalized)])
        try await client.join(input.channel, as: input.user)
        let observer = EventConnection(client: client, user: User(id: input.user))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await observer.run() }
            group.addTask { [transcript] in
                for await event in observer.events { transcript.record(event) }
            }
            defer { group.cancelAll() }
            await observer.waitUntilConnected()
            try await observer.watch(input.channel)
            transcript.willSend()
            let readers = bots.filter { runner.service(named: $0.0.name)?.channels.contains(input.channel) == true }.map(\.1)
            let sent: Message
            do {
                sent = try await client.channel(input.channel).sendMessage(text: input.text, attachments: input.attachments)
            } catch let refusal as ChatClientError where refusal.code == .messageRefused {
                // A bot judged it before it was sent (a before-send hook), and said why.
                transcript.refused(refusal.message.components(separatedBy: ": ").dropFirst(2).joined(separator: ": "))
                return try await settle(runner.services)
            }
            guard sent.type == .ephemeral else {
                transcript.sent(sent, readBy: readers)
                return try await settle(runner.services)
            }
            // A custom command answered the sender alone; a button may post it.
            transcript.answeredAlone(input.text, with: sent)
            if let press = input.press {
                do {
                    let (button, result) = try await client.press(press, on: sent)
                    transcript.pressed(button.text ?? press, result: result)
                    if let result, result.type != .ephemeral { transcript.sent(result, readBy: readers) }
                } catch let missing as ButtonNotFound {
                    return .failed(missing.message())
                }
            }
            return try await settle(runner.services)
        }
    }

    /// Waits until no bot has work queued or running and the channel has been quiet for
    /// `quietPeriod` (a message is on every watcher's connection within milliseconds on
    /// loopback, so a quiet period without work means nothing more is coming).
    private func settle(_ services: [BotService]) async throws -> Outcome {
        let clock = ContinuousClock()
        let start = clock.now
        var lastActivity = start
        var seenEvents = transcript.eventCount
        while true {
            let now = clock.now
            let busy = services.filter(\.hasPendingWork)
            let events = transcript.eventCount
            if !busy.isEmpty || events != seenEvents {
                lastActivity = now
                seenEvents = events
            } else if now - lastActivity >= quietPeriod {
                return .settled(after: lastActivity - start)
            }
            if now - start >= timeout { return .busy(bots: busy.map(\.bot.name), after: now - start) }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
