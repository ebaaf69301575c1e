import ChatBotKitConfiguration
import ArgumentParser
import ChatBotKit
import ChatDevServer
import ChatModels
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// `bots simulate --attachment workout.json`: what the configuration's bots do with one
/// message, found out on a private dev server with files of its own, without a running server
/// and without touching the data of a real run.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Send one message to the configuration's bots on a private dev server, and print what they did.",
        discussion: """
            The bots run as `bots run` runs them, on a dev server of their own on 127.0.0.1 \
            (whatever server.url says), with every file they and the server write taken inside \
            --data (a temporary folder by default). It ends once no bot has work queued or \
            running and the channel has been quiet for --settle seconds. Exit status: 0 when the \
            bots settled and no handler failed; 1 when a handler failed, the bots did not settle \
            within --timeout, or they could not start; 64 for a wrong option; 65 for an \
            attachment that cannot be sent; 78 for a mistake in the configuration.
            """)

    @Option(help: "The configuration file.")
    var config: String = "bots.yaml"

    @Option(help: "A bot of the configuration to run, by name (repeatable; default: all of them).")
    var bot: [String] = []

    @Option(help: "The channel, type:id (default: the first channel of the first bot run).")
    var channel: ChannelId?

    @Option(help: "The user who sends the message.")
    var user: String = "alice"

    @Option(help: "The message text (a /command is text too).")
    var text: String = ""

    @Option(
        help: """
            An attachment (repeatable): JSON such as '{"type":"workout",...}', a .json file holding such an object, \
            or any other file, uploaded.
            """)
    var attachment: [String] = []

    @Option(help: "The attachment type of uploaded files: file, image, video, audio, voiceRecording (default: image for image names, else file).")
    var fileType: String?

    @Option(help: "When a custom command answers with buttons (shown to the sender alone), press the one with this value, such as log.")
    var press: String?

    @Option(help: "A folder for the server's and the bots' files, kept, so that the next simulation with it goes on from there (default: a temporary folder, removed).")
    var data: String?

    @Option(help: "Seconds without work or events after which the bots count as done.")
    var settle: Double = 0.5

    @Option(help: "Seconds the bots get to settle.")
    var timeout: Double = 30

    @Flag(help: "Print the channel's events from the send on as JSON lines and nothing else (a capture `bots replay` reads); the report goes to stderr.")
    var json = false

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .warning

    func validate() throws {
        guard settle > 0, timeout > 0 else { throw ValidationError("--settle and --timeout must be more than 0") }
        guard !text.isEmpty || !attachment.isEmpty else { throw ValidationError("give --text or --attachment") }
    }

    func run() async throws {
        LoggingOptions.bootstrap(level: logLevel)
        let logger = Logger(label: "bots.simulate")
        let payloads: [AnyAttachmentPayload]
        do {
            payloads = try attachment.map { try AttachmentArguments.simulated($0, fileType: fileType.map(AttachmentType.init(rawValue:))) }
        } catch {
            Self.fail("\(error); nothing was sent")
            throw ExitCode(65)
        }
        let configuration: BotsConfiguration
        do {
            configuration = try BotsConfiguration.load(contentsOf: config)
        } catch {
            Self.note(error.description)
            throw ExitCode(78)
        }
        let entries = try selectedEntries(configuration)
        let cid = try simulatedChannel(entries)
        let folder = try SimulationFolder(path: data)
        defer { folder.finish() }
        let transcript = SimulationTranscript(user: user)
        let bots: [(BotsConfiguration.BotEntry, Bot)]
        do {
            bots = try RunCommand.makeBots(configuration, only: entries, pathRoot: folder.root, logger: logger)
        } catch {
            Self.note(error.description)
            throw ExitCode(78)
        }
        for (_, bot) in bots {
            let name = bot.name
            bot.onError { error, _ in transcript.failed(bot: name, error) }
        }
        let server = try await DevServer(configuration: serverConfiguration(configuration, in: folder), logger: Logger(label: "bots.devserver"))
        let simulation = Simulation(
            server: server, bots: bots, configuration: configuration, pathRoot: folder.root,
            input: Simulation.Input(user: user, channel: cid, text: text, attachments: payloads, press: press),
            quietPeriod: .milliseconds(Int(settle * 1000)), timeout: .milliseconds(Int(timeout * 1000)), transcript: transcript, logger: logger)
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: server), .init(service: simulation, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        Self.note("Simulating \(bots.map(\.0.name).joined(separator: ", ")) in \(cid.rawValue) on a private dev server; \(folder.description)")
        try await group.run()
        try report(transcript)
    }

    /// Prints what happened and exits 1 unless the bots settled without a failing handler.
    private func report(_ transcript: SimulationTranscript) throws {
        if json {
            for line in transcript.jsonLines { say(line) }
            for line in transcript.report { Self.note(line) }
        } else {
            for line in transcript.report { say(line) }
        }
        switch transcript.outcome {
        case .settled(let after)?:
            Self.note("The bots settled \(DurationText.format(after)) after the send.")
            if transcript.hasFailures { throw ExitCode(1) }
        case .busy(let names, let after)?:
            let who =
                names.isEmpty
                ? "the channel was not quiet for \(settle) s" : "\(names.joined(separator: ", ")) still had work queued or running"
            Self.fail("the bots did not settle: \(who) \(DurationText.format(after)) after the send (--timeout)")
            throw ExitCode(1)
        case .failed(let reason)?:
            Self.fail("the simulation stopped: \(reason)")
            throw ExitCode(1)
        case nil:
            Self.fail("the simulation stopped before it sent the message")
            throw ExitCode(1)
        }
    }

    /// The entries `--bot` names, in the file's order (all by default).
    private func selectedEntries(_ configuration: BotsConfiguration) throws -> [BotsConfiguration.BotEntry] {
        let names = Set(configuration.bots.map(\.name))
        if let unknown = bot.first(where: { !names.contains($0) }) {
            throw Self.usageError("\(config) has no bot named \(unknown); its bots: \(configuration.bots.map(\.name).joined(separator: ", "))")
        }
        let entries = bot.isEmpty ? configuration.bots : configuration.bots.filter { bot.contains($0.name) }
        guard !entries.isEmpty else { throw Self.usageError("\(config) has no bots to simulate") }
        return entries
    }

    /// `--channel`, which a bot run must follow, or the first bot's first channel.
    private func simulatedChannel(_ entries: [BotsConfiguration.BotEntry]) throws -> ChannelId {
        let followed = entries.flatMap(\.channels)
        guard let cid = channel ?? followed.first else {
            throw Self.usageError("none of the bots has channels; give --channel")
        }
        guard followed.contains(cid) else {
            let list = Array(Set(followed.map(\.rawValue))).sorted().joined(separator: ", ")
            throw Self.usageError("no bot run follows \(cid.rawValue), so nothing would answer; their channels: \(list)")
        }
        return cid
    }

    /// The configuration's embedded server, on a free loopback port, its files in `folder`.
    private func serverConfiguration(_ configuration: BotsConfiguration, in folder: SimulationFolder) -> DevServerConfiguration {
        var server = DevServerConfiguration(configuration)
        server.host = "127.0.0.1"
        server.port = 0
        server.dataDirectory = BotKindEnvironment.resolve(configuration.embedded.dataDirectory, under: folder.root)
        return server
    }

    /// A line for people on stderr (stdout stays the report, or the JSON lines).
    private static func note(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }

    private static func fail(_ message: String) { note("error: \(message)") }

    /// An option that does not fit the configuration: said, and exit 64 (a wrong option).
    private static func usageError(_ message: String) -> ExitCode {
        fail(message)
        return ExitCode.validationFailure
    }
}
