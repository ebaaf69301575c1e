import ChatBotKit
import ChatClient
import ChatModels
import CoreMetrics
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// Applies the changes of `bots.yaml` to the bots a `BotRunner` runs, as `bots run` does: on
/// SIGHUP, and (when it watches the file) once the file has changed and stayed the same for
/// one look. A file with a mistake changes nothing: the error is logged with its line and
/// column and the bots go on as they were. What each change takes is
/// ``BotsConfiguration/changes(from:)``'s.
public actor BotsReloader {
    /// Builds the bot of an entry (the CLI asks the entry's ``BotKind``).
    public typealias MakeBot = @Sendable (BotsConfiguration.BotEntry, BotsConfiguration) throws -> Bot
    /// Makes the service that runs an entry's bot.
    public typealias MakeService = @Sendable (BotsConfiguration.BotEntry, Bot, BotsConfiguration) -> BotService

    /// How often `--watch` looks at the file.
    static let watchInterval = Duration.milliseconds(500)

    let path: String
    let watchesFile: Bool
    /// Trapped at start, so a SIGHUP that comes before the bots are ready waits for them
    /// instead of ending the process (the signal's default).
    let hangUps: UnixSignalsSequence
    /// The file as it was when it was last read (at start, or by a reload).
    private var readStamp: FileStamp
    let runner: BotRunner
    let makeBot: MakeBot
    let makeService: MakeService
    let logger: Logger
    /// What runs now: the bots as last applied; server, embedded and metrics as at start.
    private var running: BotsConfiguration
    /// Whether a reload is being applied, and the reloads waiting for it: an actor lets a
    /// second one in while the first awaits (a bot draining), and it would start from a
    /// `running` that is about to change.
    private var isReloading = false
    private var waitingReloads: [CheckedContinuation<Void, Never>] = []

    /// A reloader of the file at `path`, which `running` was read from when it looked as
    /// `loadedStamp` says, for the bots `runner` runs. `hangUps` should be trapped before the
    /// bots start (see ``run()``).
    public init(
        path: String, loadedStamp: FileStamp, watchesFile: Bool, hangUps: UnixSignalsSequence, running: BotsConfiguration, runner: BotRunner,
        makeBot: @escaping MakeBot, makeService: @escaping MakeService, logger: Logger
    ) {
        self.path = path
        readStamp = loadedStamp
        self.watchesFile = watchesFile
        self.hangUps = hangUps
        self.running = running
        self.runner = runner
        self.makeBot = makeBot
        self.makeService = makeService
        self.logger = logger
    }

    /// Reloads on SIGHUP (and on changes, when it watches the file) until shutdown. The
    /// signal is trapped when `hangUps` is made, so one that comes before this runs waits
    /// instead of ending the process (the signal's default).
    public func run() async {
        let hangUps = self.hangUps
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await _ in hangUps { await self.reload(reason: "SIGHUP") }
                }
                if self.watchesFile {
                    group.addTask { await self.watchFile() }
                }
            }
        }
    }

    /// Reloads when the file changed and then stayed the same for one interval (an editor's
    /// write is over by then; a half-written file would only be rejected and read again).
    private func watchFile() async {
        var previous = FileStamp(path)
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.watchInterval)
            let now = FileStamp(path)
            // A file a SIGHUP reload read already is not read again.
            if now != readStamp, now == previous { await reload(reason: "\(path) changed") }
            previous = now
        }
    }

    /// Reads the file and applies what changed, after any reload under way; returns what
    /// happened.
    @discardableResult
    public func reload(reason: String) async -> Outcome {
        while isReloading { await withCheckedContinuation { waitingReloads.append($0) } }
        isReloading = true
        defer {
            isReloading = false
            if !waitingReloads.isEmpty { waitingReloads.removeFirst().resume() }
        }
        return await apply(reason: reason)
    }

    private func apply(reason: String) async -> Outcome {
        readStamp = FileStamp(path)
        let configuration: BotsConfiguration
        let changes: BotsConfiguration.Changes
        var addedBots: [String: Bot] = [:]
        do {
            configuration = try BotsConfiguration.load(contentsOf: path)
            changes = configuration.changes(from: running)
            // Every bot that will be built is built first, so a kind's own options are checked
            // before anything changes (`bots run --check` builds them the same way). A new bot's
            // check is its build; one that runs now is built again once it is stopped or idle,
            // so two never hold its store at once (see `BotKind`).
            for entry in changes.added { addedBots[entry.name] = try makeBot(entry, configuration) }
            for entry in changes.restarted + changes.reconfigured { _ = try makeBot(entry, configuration) }
        } catch {
            logger.error("\(error); nothing was changed (reload on \(reason))")
            return record(.rejected)
        }
        guard !changes.isEmpty else {
            logger.info("Reloaded \(path) on \(reason): nothing changed")
            return record(.unchanged)
        }
        var done: [String] = []
        var failures = 0
        var bots = Dictionary(uniqueKeysWithValues: running.bots.map { ($0.name, $0) })
        // A restarted bot is stopped first: the same name cannot run twice. Its user then leaves
        // the channels the file no longer runs it in (all of them when the bot is gone or has
        // another user): it would still look present there.
        for entry in changes.removed + changes.restarted {
            let client = runner.service(named: entry.name)?.client
            await runner.stop(botNamed: entry.name)
            if let old = bots[entry.name], let client {
                failures += await leaveChannels(of: old, client: client, keeping: configuration, done: &done)
            }
            bots[entry.name] = nil
        }
        done += changes.removed.map { "stopped \($0.name)" }
        for (entry, verb) in changes.restarted.map({ ($0, "restarted") }) + changes.added.map({ ($0, "started") }) {
            if await start(entry, bot: addedBots[entry.name], in: configuration) {
                bots[entry.name] = entry
                done.append("\(verb) \(entry.name)")
            } else {
                failures += 1
            }
        }
        for entry in changes.reconfigured {
            guard let service = runner.service(named: entry.name) else { continue }
            do {
                let makeBot = self.makeBot
                try await service.reconfigure { try makeBot(entry, configuration) }
                bots[entry.name]?.node = entry.node
                done.append("reconfigured \(entry.name) (not reconnected)")
            } catch {
                failures += 1
                logger.error("Bot \(entry.name) keeps its configuration: \(error)")
            }
        }
        for (entry, channels) in changes.followed {
            guard let service = runner.service(named: entry.name) else { continue }
            for cid in channels {
                do {
                    try await service.follow(cid)
                    bots[entry.name]?.channels.append(cid)
                    done.append("\(entry.name) follows \(cid)")
                } catch {
                    failures += 1
                    logger.error("\(error)")
                }
            }
        }
        for (entry, channels) in changes.left {
            guard let service = runner.service(named: entry.name) else { continue }
            for cid in channels {
                // Where another bot runs as the same user, the membership is its too, and stays.
                if !configuration.runs(entry.user, in: cid) {
                    do {
                        try await service.leave(cid)
                        done.append("\(entry.name) left \(cid)")
                    } catch {
                        failures += 1
                        logger.error("\(error)")
                        continue
                    }
                }
                bots[entry.name]?.channels.removeAll { $0 == cid }
            }
        }
        if !changes.needingRestart.isEmpty {
            logger.warning("Changes to \(changes.needingRestart.joined(separator: ", ")) in \(path) take effect at the next start")
        }
        running.bots = configuration.bots.compactMap { bots[$0.name] }
        if failures > 0 { done.append("\(failures) change\(failures == 1 ? "" : "s") failed (see above; the next reload tries again)") }
        logger.info("Reloaded \(path) on \(reason): \(done.isEmpty ? "no bot changed" : done.joined(separator: "; "))")
        return record(failures > 0 ? .failed : .applied)
    }

    /// The user `entry` ran as leaves the entry's channels, but those where `configuration`
    /// still runs a bot as that user (the restarted bot itself, a renamed one); returns how many
    /// it could not leave (logged).
    private func leaveChannels(
        of entry: BotsConfiguration.BotEntry, client: ChatClient, keeping configuration: BotsConfiguration, done: inout [String]
    ) async -> Int {
        var failures = 0
        for cid in entry.channels where !configuration.runs(entry.user, in: cid) {
            do {
                try await client.removeMembers([entry.user], from: cid)
                done.append("\(entry.user) left \(cid)")
            } catch {
                failures += 1
                logger.error("\(entry.user), the user bot \(entry.name) ran as, could not leave \(cid): \(error)")
            }
        }
        return failures
    }

    /// Starts a bot (`bot`, or one built now); false (and the reason logged) if it cannot start.
    private func start(_ entry: BotsConfiguration.BotEntry, bot: Bot?, in configuration: BotsConfiguration) async -> Bool {
        do {
            try await runner.start(makeService(entry, try bot ?? makeBot(entry, configuration), configuration))
            return true
        } catch {
            logger.error("Bot \(entry.name) did not start: \(error)")
            return false
        }
    }

    /// What a reload did.
    public enum Outcome: String, Sendable {
        /// Every change was applied.
        case applied
        /// The file means what runs already.
        case unchanged
        /// The file has a mistake; nothing changed.
        case rejected
        /// Some changes were applied, some could not be (a bot that could not start, ...).
        case failed
    }

    private func record(_ outcome: Outcome) -> Outcome {
        Counter(label: "chatbotkit_config_reloads_total", dimensions: [("outcome", outcome.rawValue)]).increment()
        return outcome
    }
}

extension BotsConfiguration {
    /// Whether a bot of this configuration runs as `userId` in `cid`, so that user stays there.
    func runs(_ userId: String, in cid: ChannelId) -> Bool {
        bots.contains { $0.user == userId && $0.channels.contains(cid) }
    }
}
