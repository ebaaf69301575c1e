import ChatBotKitConfiguration
import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatLocking
import ChatModels
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals
import Testing

@Suite("Changing running bots: new handlers without reconnecting, new channels, bots started and stopped")
struct ReconfigurationTests {
    /// A bot answering people's messages with `version` (not other bots', or two would answer
    /// each other forever); "slow" takes a while.
    static func versioned(_ version: String, recorder: Recorder<String>, name: String = "versioned", user: String? = nil) -> Bot {
        let bot = Bot(name: name, user: user.map { User(id: $0) })
        bot.onMessage { context in
            guard ["ann", "bob", "cat"].contains(context.message.user?.id) else { return }
            recorder.record("\(version) started \(context.message.text)")
            if context.message.text == "slow" { try await Task.sleep(for: .milliseconds(800)) }
            try await context.reply(text: version)
            recorder.record("\(version) finished \(context.message.text)")
        }
        return bot
    }

    @Test("reconfigure swaps the handlers between two handlers without reconnecting: the running one ends on the old, what came meanwhile gets the new")
    func swapBetweenHandlers() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let bob = try await TestUser.join(server, id: "bob", channel: "messaging:other")
            try await server.withBot(Self.versioned("v1", recorder: recorder), channels: ["messaging:general", "messaging:other"]) { running in
                let connections = running.service.connection.connectionCount
                let slow = try await ann.send(text: "slow")
                try await recorder.wait { $0.contains("v1 started slow") }
                async let reconfigured: Void = running.service.reconfigure {
                    recorder.record("v2 built")
                    return Self.versioned("v2", recorder: recorder)
                }
                try await Task.sleep(for: .milliseconds(100))
                // Another channel, so nothing but the reconfiguration holds it back.
                let meanwhile = try await bob.send(text: "meanwhile")
                try await reconfigured
                #expect(try await ann.replies(to: slow, from: "versioned").map(\.text) == ["v1"])
                #expect(try await bob.replies(to: meanwhile, from: "versioned").map(\.text) == ["v2"])
                let after = try await ann.send(text: "after")
                #expect(try await ann.replies(to: after, from: "versioned").map(\.text) == ["v2"])
                #expect(
                    recorder.all == [
                        "v1 started slow", "v1 finished slow", "v2 built", "v2 started meanwhile", "v2 finished meanwhile", "v2 started after",
                        "v2 finished after",
                    ])
                #expect(running.service.connection.connectionCount == connections, "no reconnect")
            }
        }
    }

    struct BuildFailed: Error {}

    @Test("a reconfiguration to another user, or whose build throws, changes nothing: the old handlers answer on")
    func refusedReconfiguration() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(Self.versioned("v1", recorder: recorder), channels: ["messaging:general"]) { running in
                let otherUser = await #expect(throws: BotError.self) {
                    try await running.service.reconfigure { Bot(name: "versioned", user: User(id: "someone-else")) }
                }
                #expect(otherUser?.code == .configuration)
                #expect(otherUser?.message.contains("cannot become bot versioned (user someone-else) without a restart") == true)
                await #expect(throws: BuildFailed.self) { try await running.service.reconfigure { throw BuildFailed() } }
                let sent = try await ann.send(text: "still there?")
                #expect(try await ann.replies(to: sent, from: "versioned").map(\.text) == ["v1"])
            }
        }
    }

    @Test("reconfigure from one of the bot's own handlers is refused, saying how, and changes nothing; from a Task the handler starts, it applies once the handler is done")
    func reconfigureFromAHandler() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let service = Locked<BotService?>(nil)
            let bot = Bot(name: "versioned")
            bot.onMessage { context in
                guard context.message.user?.id == "ann", let running = service.withLock({ $0 }) else { return }
                let makeV2: @Sendable () -> Bot = {
                    recorder.record("v2 built")
                    return Self.versioned("v2", recorder: recorder)
                }
                switch context.message.text {
                case "now":
                    do {
                        try await running.reconfigure(makeV2)
                        try await context.reply(text: "reconfigured")
                    } catch let error as BotError {
                        try await context.reply(text: "\(error.code): \(error.message)")
                    }
                case "later":
                    Task { try await running.reconfigure(makeV2) }
                    try await context.reply(text: "later")
                default:
                    try await context.reply(text: "v1")
                }
            }
            try await server.withBot(bot, channels: ["messaging:general"]) { running in
                service.withLock { $0 = running.service }
                let now = try await ann.send(text: "now")
                #expect(
                    try await ann.replies(to: now, from: "versioned").map(\.text) == [
                        "bot.configuration: bot versioned cannot be reconfigured from one of its own handlers, which the reconfiguration "
                            + "waits for; start it in a Task the handler does not await, and it applies once the handler is done"
                    ])
                let still = try await ann.send(text: "still v1?")
                #expect(try await ann.replies(to: still, from: "versioned").map(\.text) == ["v1"])

                let later = try await ann.send(text: "later")
                #expect(try await ann.replies(to: later, from: "versioned").map(\.text) == ["later"])
                try await recorder.wait { $0.contains("v2 built") }
                let after = try await ann.send(text: "after")
                #expect(try await ann.replies(to: after, from: "versioned").map(\.text) == ["v2"])
                #expect(recorder.all.filter { $0 == "v2 built" }.count == 1, "only the Task's reconfiguration built the new bot")
            }
        }
    }

    @Test("follow joins and watches a channel the bot was not in, without reconnecting")
    func followNewChannel() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            try await server.withBot(Self.versioned("v1", recorder: recorder), channels: ["messaging:general"]) { running in
                let connections = running.service.connection.connectionCount
                try await running.service.follow("messaging:new")
                #expect(running.service.channels == ["messaging:general", "messaging:new"])
                let cat = try await TestUser.join(server, id: "cat", channel: "messaging:new")
                let sent = try await cat.send(text: "hello")
                #expect(try await cat.replies(to: sent, from: "versioned").map(\.text) == ["v1"])
                #expect(running.service.connection.connectionCount == connections)
            }
        }
    }

    @Test("a running runner starts and stops bots one at a time; one that cannot start says why and the others go on")
    func runnerStartsAndStops() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            func service(_ bot: Bot, secret: String? = nil) -> BotService {
                let client = server.client(as: bot.user.id) { configuration in
                    if let secret { configuration.credentials = .apiSecret(secret) }
                }
                return BotService(bot: bot, client: client, channels: ["messaging:general"], configuration: TestChatServer.testBotConfiguration)
            }
            let runner = BotRunner(services: [service(Self.versioned("a", recorder: recorder, name: "alpha"))])
            let group = ServiceGroup(configuration: .init(services: [runner], logger: Logger(label: "test.runner")))
            let running = Task { try await group.run() }
            try await runner.waitUntilReady()

            try await runner.start(service(Self.versioned("b", recorder: recorder, name: "beta")))
            let first = try await ann.send(text: "first")
            #expect(Set(try await ann.replies(to: first, from: "beta").map(\.text)) == ["b"])
            #expect(try await ann.replies(to: first, from: "alpha").map(\.text) == ["a"])

            let twice = await #expect(throws: BotError.self) { try await runner.start(service(Self.versioned("b2", recorder: recorder, name: "beta"))) }
            #expect(twice?.message == "a bot named beta is already running; stop it first")
            let refused = await #expect(throws: BotError.self) {
                try await runner.start(service(Self.versioned("c", recorder: recorder, name: "gamma"), secret: "not-this-server's-secret-at-all"))
            }
            #expect(refused?.code == .startFailed)
            #expect(refused?.message.hasPrefix("bot gamma could not set up its user and channels") == true, "\(String(describing: refused))")
            try await eventually("gamma is gone") { runner.services.map(\.bot.name) == ["alpha", "beta"] }

            // Stopping beta lets its running handler finish first, as a shutdown does.
            _ = try await ann.send(text: "slow")
            try await recorder.wait { $0.contains("b started slow") }
            #expect(await runner.stop(botNamed: "beta"))
            #expect(recorder.all.contains("b finished slow"))
            #expect(runner.services.map(\.bot.name) == ["alpha"])
            #expect(await runner.stop(botNamed: "nobody") == false)
            let last = try await ann.send(text: "last")
            #expect(try await ann.replies(to: last, from: "alpha").map(\.text) == ["a"])
            try await Task.sleep(for: .milliseconds(300))
            #expect(!recorder.all.contains("b started last"))

            await group.triggerGracefulShutdown()
            try await running.value
            #expect(runner.services.isEmpty)
        }
    }

    @Test("a reload waits for the one under way: one that comes while the first waits for a running handler finds nothing left to change")
    func reloadsOneAtATime() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bots = try await ReloadingBots.start(on: server, recorder: recorder, "{name: versioned, kind: versioned, channels: [messaging:general], version: v1}")
            let reloader = bots.reloader
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await ann.send(text: "slow")
            try await recorder.wait { $0.contains("v1 started slow") }
            try bots.write("{name: versioned, kind: versioned, channels: [messaging:general], version: v2}")
            async let first = reloader.reload(reason: "first")
            // The first is waiting for the slow handler to finish before it swaps the handlers.
            try await Task.sleep(for: .milliseconds(200))
            let second = await reloader.reload(reason: "second")
            #expect(await first == .applied)
            #expect(second == .unchanged)
            #expect(bots.builds.all == ["versioned v1", "versioned v2", "versioned v2"], "at start, then the first reload's check and build; the second built nothing")
            let after = try await ann.send(text: "after")
            #expect(try await ann.replies(to: after, from: "versioned").map(\.text).last == "v2")
            try await bots.stop()
        }
    }

    @Test("a reload takes a bot out of the channels the file took from it, and a user it no longer runs out of its bot's; a new bot is built once")
    func leavesWhatTheFileTookAway() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bots = try await ReloadingBots.start(
                on: server, recorder: recorder,
                "{name: alpha, kind: versioned, user: alpha-bot, channels: [messaging:general, messaging:gym], version: a}",
                "{name: beta, kind: versioned, user: beta-bot, channels: [messaging:general], version: b}")
            let (reloader, runner) = (bots.reloader, bots.runner)
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let annInGym = try await TestUser.join(server, id: "ann", channel: "messaging:gym")
            let observer = server.client(as: "ann")
            func members(_ cid: ChannelId) async throws -> Set<String> { Set(try await observer.queryChannel(cid).members.map(\.userId)) }
            #expect(try await members("messaging:gym") == ["alpha-bot", "ann"])

            // The gym leaves alpha's list, beta runs as another user, gamma comes.
            try bots.write(
                "{name: alpha, kind: versioned, user: alpha-bot, channels: [messaging:general], version: a}",
                "{name: beta, kind: versioned, user: beta-bot-2, channels: [messaging:general], version: b}",
                "{name: gamma, kind: versioned, user: gamma-bot, channels: [messaging:general], version: c}")
            #expect(await reloader.reload(reason: "test") == .applied)
            #expect(try await members("messaging:gym") == ["ann"])
            #expect(try await members("messaging:general") == ["alpha-bot", "beta-bot-2", "gamma-bot", "ann"])
            #expect(runner.service(named: "alpha")?.channels == ["messaging:general"])
            #expect(bots.builds.all == ["alpha a", "beta b", "gamma c", "beta b", "beta b"], "gamma's check was its build; beta's old self ran meanwhile")
            _ = try await annInGym.send(text: "anyone?")
            let hello = try await ann.send(text: "hello")
            #expect(Set(try await ann.replies(to: hello, from: "alpha-bot").map(\.text)) == ["a"])
            #expect(Set(try await ann.replies(to: hello, from: "beta-bot-2").map(\.text)) == ["b"])
            try await Task.sleep(for: .milliseconds(300))
            #expect(!recorder.all.contains("a started anyone?"), "alpha no longer follows the gym: \(recorder.all)")

            // Taking a bot out of the file takes its user out of its channels; renaming one
            // (the old name goes, a new one comes as the same user) keeps the user where it is.
            try bots.write(
                "{name: alpha-2, kind: versioned, user: alpha-bot, channels: [messaging:general], version: a2}",
                "{name: beta, kind: versioned, user: beta-bot-2, channels: [messaging:general], version: b}")
            #expect(await reloader.reload(reason: "test") == .applied)
            #expect(try await members("messaging:general") == ["alpha-bot", "beta-bot-2", "ann"])
            let again = try await ann.send(text: "again")
            #expect(Set(try await ann.replies(to: again, from: "alpha-bot").map(\.text)) == ["a2"])

            // A bot restarted (here for its concurrency) with a channel fewer leaves that one too.
            try bots.write(
                "{name: alpha-2, kind: versioned, user: alpha-bot, channels: [messaging:general], version: a2}",
                "{name: beta, kind: versioned, user: beta-bot-2, channels: [messaging:general, messaging:gym], version: b}")
            #expect(await reloader.reload(reason: "test") == .applied)
            #expect(try await members("messaging:gym") == ["beta-bot-2", "ann"])
            try bots.write(
                "{name: alpha-2, kind: versioned, user: alpha-bot, channels: [messaging:general], version: a2}",
                "{name: beta, kind: versioned, user: beta-bot-2, channels: [messaging:general], version: b, concurrency: 2}")
            #expect(await reloader.reload(reason: "test") == .applied)
            #expect(try await members("messaging:gym") == ["ann"])
            #expect(try await members("messaging:general") == ["alpha-bot", "beta-bot-2", "ann"])
            try await bots.stop()
        }
    }
}

/// A bots.yaml in a temporary folder, its bots (kind `versioned`, answering their `version`)
/// running on a test server, and a reloader of the file, as `bots run` has.
final class ReloadingBots: Sendable {
    let path: String
    /// Each build: the entry's name and version.
    let builds: Recorder<String>
    let runner: BotRunner
    let reloader: BotsReloader
    private let folder: ScratchFolder
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(folder: ScratchFolder, path: String, runner: BotRunner, reloader: BotsReloader, group: ServiceGroup, builds: Recorder<String>) {
        self.folder = folder
        self.path = path
        self.runner = runner
        self.reloader = reloader
        self.group = group
        self.builds = builds
        task = Task { try await group.run() }
    }

    /// Writes the file with `bots` (flow-style entries), starts them, and waits until they are ready.
    static func start(on server: TestChatServer, recorder: Recorder<String>, _ bots: String...) async throws -> ReloadingBots {
        let folder = try ScratchFolder("reload")
        let path = folder.path("bots.yaml").path
        try write(bots, to: path)
        let running = try BotsConfiguration.load(contentsOf: path)
        let builds = Recorder<String>()
        let makeBot: BotsReloader.MakeBot = { entry, _ in
            let version = try entry.node.required("version").string()
            builds.record("\(entry.name) \(version)")
            return ReconfigurationTests.versioned(version, recorder: recorder, name: entry.name, user: entry.user)
        }
        let makeService: BotsReloader.MakeService = { entry, bot, _ in
            BotService(bot: bot, client: server.client(as: bot.user.id), channels: entry.channels, configuration: TestChatServer.testBotConfiguration)
        }
        let runner = BotRunner(services: try running.bots.map { makeService($0, try makeBot($0, running), running) })
        let reloader = BotsReloader(
            path: path, loadedStamp: FileStamp(path), watchesFile: false, hangUps: await UnixSignalsSequence(trapping: []), running: running,
            runner: runner, makeBot: makeBot, makeService: makeService, logger: Logger(label: "test.reload"))
        let group = ServiceGroup(configuration: .init(services: [runner], logger: Logger(label: "test.runner")))
        let started = ReloadingBots(folder: folder, path: path, runner: runner, reloader: reloader, group: group, builds: builds)
        try await runner.waitUntilReady()
        return started
    }

    /// Writes the file again with `bots`.
    func write(_ bots: String...) throws { try Self.write(bots, to: path) }

    private static func write(_ bots: [String], to path: String) throws {
        try (["server: {api_key: key, api_secret: a-secret-of-at-least-32-bytes-long}", "bots:"] + bots.map { "  - \($0)" })
            .joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Stops the bots gracefully (the folder goes with the value).
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }
}
