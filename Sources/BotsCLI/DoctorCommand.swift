import ChatBotKitConfiguration
import ArgumentParser
import ChatBotKit
import ChatBotKitPostgres
import ChatClient
import ChatModels
import ChatTelemetry
import Foundation
import Logging

/// `bots doctor`: checks, without starting any bot, what the bots of a configuration need from
/// their server, and says what to change when something is missing.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check that the bots of a configuration can run: the file, the server, its credentials, its upload rules, "
            + "each bot's user and channels, and the realtime connection. Creates nothing, but the WebSocket check connects as the "
            + "first bot's user, which makes that user as the bot's start would. Exits 1 when a check fails.")

    @OptionGroup var options: ConfigOptions

    @Option(help: "Seconds the realtime check waits for a WebSocket connection.")
    var timeout: Int = 10

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard timeout > 0 else { throw ValidationError("--timeout must be at least 1 second") }
    }

    func run() async throws {
        logging.bootstrap()
        let checkup = Checkup()
        let configuration: BotsConfiguration
        let bots: [(BotsConfiguration.BotEntry, Bot)]
        do {
            configuration = try BotsConfiguration.load(contentsOf: options.config)
            bots = try RunCommand.makeBots(configuration, logger: Logger(label: "bots.doctor"))
        } catch {
            // The error starts with the file, line and column, as editors read them.
            say("FAIL  \(error.description)")
            throw ExitCode(78)
        }
        if configuration.bots.isEmpty {
            checkup.report(.note, options.config, "no bots: `bots run` would run none (add them under bots:)")
        } else {
            let names = configuration.bots.map(\.name).joined(separator: ", ")
            checkup.report(.ok, options.config, "\(counted(configuration.bots.count, "bot")) (\(names)), each with a kind this CLI knows")
        }

        let client = options.client(as: configuration.bots.first?.user ?? "doctor", in: configuration)
        if let settings = await checkServer(client, configuration, checkup) {
            checkup.report(.ok, "uploads", "files: \(Self.describe(settings.fileUploadConfig)); images: \(Self.describe(settings.imageUploadConfig))")
            await checkRateLimits(client, configuration, checkup)
            checkWebhook(settings, configuration, checkup)
            await checkCustomCommands(settings, configuration, bots: bots, client: client, checkup)
            await checkClock(client, checkup)
            for entry in configuration.bots { await checkBot(entry, configuration: configuration, client: client, checkup) }
            if let scaleOut = configuration.scaleOut { await checkScaleOut(scaleOut, bots: configuration.bots, checkup) }
            if let tracing = configuration.tracing { await checkTracing(tracing, checkup) }
            // Last: connecting records the user, as the bot's own start would. Only bots that
            // take their events over a WebSocket need one.
            if let first = configuration.bots.first(where: { $0.events == .websocket }) { await checkRealtime(client, user: first.user, checkup) }
        }
        say(checkup.summary)
        if checkup.failures > 0 { throw ExitCode(1) }
    }

    /// The server answers and takes the key and secret, which the other checks need: the app's
    /// settings (its upload rules, which every file a bot sends must pass), or nil.
    private func checkServer(_ client: ChatClient, _ configuration: BotsConfiguration, _ checkup: Checkup) async -> AppSettings? {
        let (base, origin) = options.address(configuration)
        let source =
            switch origin {
            case .option: "--server"
            case .configuration: "server.url"
            case .embedded: "the embedded dev server's address; `\(BotsCLI.commandName) run` or `\(BotsCLI.commandName) serve` starts it"
            }
        let start = ContinuousClock.now
        do {
            let settings = try await client.appSettings(refresh: true)
            checkup.report(.ok, "server", "\(base.absoluteString) (\(source)) answers in \(DurationText.format(ContinuousClock.now - start))")
            checkup.report(.ok, "credentials", "api key \"\(configuration.server.apiKey)\" and its secret are accepted")
            return settings
        } catch let error as ChatClientError where error.isServerUnreachable {
            checkup.report(.fail, "server", ServerUnreachable(base: base, origin: origin, underlying: error).description)
        } catch let error as ChatClientError where error.httpStatus == 401 || error.httpStatus == 403 {
            checkup.report(.ok, "server", "\(base.absoluteString) (\(source)) answers")
            checkup.report(
                .fail, "credentials",
                "the server refused api key \"\(configuration.server.apiKey)\" or its secret: \(error.message); "
                    + "check server.api_key and server.api_secret (or the variables they name) against the app's keys")
        } catch {
            checkup.report(.fail, "server", "\(base.absoluteString) (\(source)) does not answer as a Stream Chat server: \(error)")
        }
        checkup.report(.skip, "the rest", "needs the server and its credentials")
        return nil
    }

    /// The lease store answers, and which nodes run each bot now (read only: the doctor
    /// announces no node and takes no lease).
    private func checkScaleOut(_ scaleOut: BotsConfiguration.ScaleOut, bots: [BotsConfiguration.BotEntry], _ checkup: Checkup) async {
        let connection: PostgresConnectionString
        do {
            connection = try PostgresConnectionString(scaleOut.postgres.value)
        } catch {
            checkup.report(.fail, "scale_out", "\(error.message); fix scale_out.postgres")
            return
        }
        let store = PostgresChannelLeaseStore(connection: connection, logger: Logger(label: "bots.doctor"))
        let pool = Task { await store.run() }
        defer { pool.cancel() }
        let start = ContinuousClock.now
        do {
            var running: [String] = []
            for entry in bots {
                let nodes = try await store.runningNodes(bot: entry.name)
                let held = try await store.leases(bot: entry.name).filter(\.isHeld)
                let shares = nodes.map { node in "\(node) (\(held.filter { $0.owner == node }.count))" }
                running.append(nodes.isEmpty ? "\(entry.name) on no node yet" : "\(entry.name) on \(shares.joined(separator: ", "))")
            }
            checkup.report(
                .ok, "scale_out",
                "PostgreSQL at \(connection) answers in \(DurationText.format(ContinuousClock.now - start)); channels held: \(running.joined(separator: "; "))")
        } catch {
            checkup.report(.fail, "scale_out", "\(error); check scale_out.postgres, and that the database takes connections from here")
        }
    }

    /// The collector takes an (empty) export: the spans of `bots run` will reach it.
    private func checkTracing(_ tracing: BotsConfiguration.TracingExport, _ checkup: Checkup) async {
        var configuration = tracing.tracerConfiguration(instance: BotService.ScaleOut.defaultNode)
        configuration.exportTimeout = .seconds(timeout)
        let tracer = OTLPTracer(configuration: configuration, logger: Logger(label: "bots.doctor"))
        let start = ContinuousClock.now
        do {
            try await tracer.checkCollector()
            let share = tracing.sample == 1 ? "every trace" : "\(Int((tracing.sample * 100).rounded()))% of traces"
            checkup.report(
                .ok, "tracing",
                "the collector at \(tracer.configuration.tracesURL.absoluteString) takes spans (\(DurationText.format(ContinuousClock.now - start))); \(share) as service \(tracing.service)")
        } catch {
            checkup.report(.fail, "tracing", "\(error.message); check tracing.otlp, and that the collector takes OTLP/HTTP from here")
        }
    }

    /// This machine's clock against the server's: links expire by the server's clock and are
    /// refreshed by this one's, `linkRefreshMargin` ahead.
    private func checkClock(_ client: ChatClient, _ checkup: Checkup) async {
        let margin = client.configuration.linkRefreshMargin
        do {
            let clock = try await client.serverClock()
            if clock.isOff(byMoreThan: margin) {
                let effect =
                    clock.offset > .zero
                    ? "the bots would use signed links after they expired" : "the bots would refresh signed links long before they expire"
                checkup.report(
                    .fail, "clock",
                    "this machine's clock is \(clock): more than the \(DurationText.format(margin)) before expiry at which bots refresh "
                        + "signed links, so \(effect); sync it (timedatectl set-ntp true)")
            } else if clock.isOff(byMoreThan: .seconds(2)) {
                checkup.report(.note, "clock", "this machine's clock is \(clock); links still refresh in time, but sync it (timedatectl set-ntp true)")
            } else {
                checkup.report(.ok, "clock", "this machine's clock is \(clock)")
            }
        } catch {
            checkup.report(.note, "clock", "the server's clock could not be read: \(error)")
        }
    }

    /// A WebSocket connection as `user` gets its first health check (proxies that do not pass
    /// WebSockets on fail here, not in the bots' first minutes).
    private func checkRealtime(_ client: ChatClient, user: String, _ checkup: Checkup) async {
        let connection = EventConnection(
            client: client, user: User(id: user), configuration: .init(connectTimeout: .seconds(timeout)))
        let start = ContinuousClock.now
        let timeout = Duration.seconds(self.timeout)
        let connected = await withTaskGroup(of: Bool?.self) { group in
            group.addTask { (try? await connection.run()).map { false } ?? false }
            group.addTask {
                await connection.waitUntilConnected()
                return connection.connectionId != nil ? true : nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return Task.isCancelled ? nil : false
            }
            var outcome = false
            for await result in group {
                guard let result else { continue }
                outcome = result
                break
            }
            group.cancelAll()
            return outcome
        }
        if connected {
            checkup.report(.ok, "realtime", "a WebSocket connection as \(user) got its first health check in \(DurationText.format(ContinuousClock.now - start))")
        } else {
            let why = connection.lastFailure.map { "\($0)" } ?? "no answer within \(self.timeout) s"
            checkup.report(.fail, "realtime", "no WebSocket connection as \(user): \(why); the bots would get no messages")
        }
    }

    /// The bot's user, and which channels it will follow: those of the file (created at start
    /// when missing) and every other one it is a member of.
    private func checkBot(
        _ entry: BotsConfiguration.BotEntry, configuration: BotsConfiguration, client: ChatClient, _ checkup: Checkup
    ) async {
        let subject = "bot \(entry.name)"
        do {
            let user = try await client.queryUsers(ids: [entry.user]).first
            if let user, let disabled = Self.disabled(user) {
                let remedy = disabled == "deactivated" ? "reactivate" : "restore"
                checkup.report(.fail, subject, "user \(entry.user) is \(disabled), so the bot could neither connect nor post; \(remedy) it first")
                return
            }
            let exists = user != nil
            let existing = try await client.existingChannels(entry.channels)
            let memberOf = try await client.memberChannels(of: entry.user)
            let userText = exists ? "user \(entry.user) exists" : "user \(entry.user) does not exist yet (made at start)"
            let missing = entry.channels.filter { !existing.contains($0) }
            let toJoin = entry.channels.filter { existing.contains($0) && !memberOf.contains($0) }
            let others = memberOf.filter { !entry.channels.contains($0) }
            var parts = [userText]
            if !missing.isEmpty { parts.append("\(Self.list(missing)) \(missing.count == 1 ? "does" : "do") not exist yet (created at start)") }
            if !toJoin.isEmpty { parts.append("joins \(Self.list(toJoin)) at start") }
            let members = entry.channels.filter { memberOf.contains($0) }
            if !members.isEmpty { parts.append("a member of \(Self.list(members))") }
            if !others.isEmpty { parts.append("also follows \(Self.list(others)), of which it is a member") }
            parts.append(Self.describeStart(channels: entry.channels, existing: existing, memberOf: memberOf))
            let (catchUp, catchUpIsFine) = Self.describeCatchUp(entry, configuration: configuration)
            if let catchUp { parts.append(catchUp) }
            checkup.report(missing.isEmpty && toJoin.isEmpty && exists && catchUpIsFine ? .ok : .note, subject, parts.joined(separator: "; "))
        } catch {
            checkup.report(.fail, subject, "its user and channels could not be read: \(error)")
        }
    }

    /// What the bot's next start catches up on, from its checkpoint, and whether that is as
    /// it should be (false for a checkpoint that cannot be read, or older than `catch_up`).
    static func describeCatchUp(_ entry: BotsConfiguration.BotEntry, configuration: BotsConfiguration, now: Date = Date()) -> (String?, Bool) {
        guard let maximumAge = entry.catchUp else { return (nil, true) }
        let file = configuration.checkpointFile(for: entry)
        let checkpoint: BotCheckpoint?
        do {
            checkpoint = try BotCheckpoint.load(from: file)
        } catch {
            return ("\(error.message); it would start without catching up (it keeps the file aside)", false)
        }
        guard let checkpoint else { return ("no checkpoint yet: it handles what comes from its first start on", true) }
        // Whole minutes past two minutes, whole hours past two hours: how long, not to the second.
        let seconds = max(0, now.timeIntervalSince(checkpoint.savedAt))
        let unit: Double = seconds >= 7200 ? 3600 : seconds >= 120 ? 60 : 1
        let saved = "its checkpoint was saved \(DurationText.format(.seconds((seconds / unit).rounded() * unit))) ago"
        guard seconds <= maximumAge.timeInterval else {
            let age = DurationText.format(maximumAge)
            return ("\(saved), longer than catch_up (\(age)): its next start catches up on the last \(age) only", false)
        }
        return ("\(saved): its next start catches up from there", true)
    }

    /// `deactivated` or `deleted` for a user that may not connect or act, nil for one that may.
    static func disabled(_ user: User) -> String? {
        if user.deletedAt != nil { return "deleted" }
        return user.deactivatedAt == nil ? nil : "deactivated"
    }


    /// One upload configuration in words.
    static func describe(_ config: UploadConfig) -> String {
        var parts = ["up to \(ByteSizeText.format(config.effectiveSizeLimit))"]
        if !config.allowedFileExtensions.isEmpty { parts.append("only \(config.allowedFileExtensions.joined(separator: " "))") }
        if !config.blockedFileExtensions.isEmpty { parts.append("not \(config.blockedFileExtensions.joined(separator: " "))") }
        if !config.allowedMimeTypes.isEmpty { parts.append("only \(config.allowedMimeTypes.joined(separator: " "))") }
        if !config.blockedMimeTypes.isEmpty { parts.append("not \(config.blockedMimeTypes.joined(separator: " "))") }
        return parts.joined(separator: ", ")
    }
}
