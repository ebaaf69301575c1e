import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatLocking
import ChatModels
import Foundation
import Logging
import Prometheus
import ServiceLifecycle
import Testing

@Suite("A bot in hundreds of channels joins, watches and syncs them in pages, a few calls for all")
struct ManyChannelsTests {
    /// A bot that answers every message with "seen <text>" and records "<channel id> <text>".
    static func answeringBot(_ recorder: Recorder<String>) -> Bot {
        let bot = Bot(name: "keeper")
        bot.onMessage { context in
            try await context.reply(text: "seen \(context.message.text)")
            recorder.record("\(context.channel.cid.id) \(context.message.text)")
        }
        return bot
    }

    /// `messaging:c000`, `messaging:c001`, ...
    static func channels(_ count: Int, from start: Int = 0) -> [ChannelId] {
        (start..<start + count).map { ChannelId(type: .messaging, id: String(format: "c%03d", $0)) }
    }

    /// Creates each of `cids` with `members`, as ann.
    static func create(_ cids: [ChannelId], members: [String], by ann: TestUser) async throws {
        for cid in cids { try await ann.client.queryChannel(cid, members: members, createdBy: ann.id, messageLimit: 0) }
    }

    /// The calls each endpoint took since `before`.
    static func calls(_ server: TestChatServer, since before: [EndpointName: Int] = [:]) -> [EndpointName: Int] {
        server.server.requestCounts.reduce(into: [:]) { counts, entry in
            let made = entry.value - before[entry.key, default: 0]
            if made > 0 { counts[entry.key] = made }
        }
    }

    @Test("300 channels: 240 joined before, 30 to join, 30 to create; it starts in 11 Query Channels pages and answers in all 300")
    func startsInPages() async throws {
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:lobby")
            try await server.client(as: "keeper").upsertUsers([User(id: "keeper")])
            let all = Self.channels(300)
            try await Self.create(Array(all[0..<240]), members: ["ann", "keeper"], by: ann)
            try await Self.create(Array(all[240..<270]), members: ["ann"], by: ann)
            let before = server.server.requestCounts

            let recorder = Recorder<String>()
            try await server.withBot(Self.answeringBot(recorder), channels: all) { running in
                let made = Self.calls(server, since: before)
                // Its member channels in 9 pages (8 full, 1 empty), the 60 others in 2; the 30
                // missing created and the 30 others joined, one call each; nothing per channel else.
                #expect(made[.queryChannels] == 11)
                #expect(made[.getOrCreateChannel] == 30)
                #expect(made[.updateChannel] == 30)
                #expect(made[.sync] == nil)
                let report = try #require(running.service.connection.lastWatchReport)
                #expect(report.watched == 300 && report.joined == 30 && report.created == 30 && report.calls == 71)
                #expect(report.failures.isEmpty)
                #expect(Set(running.service.connection.watchedChannels) == Set(all))
                for cid in all { #expect(await server.server.watchers(of: cid).contains("keeper")) }

                // Ann joins the channels the bot created, then writes in every one.
                for cid in all[270...] { try await ann.client.join(cid, as: "ann") }
                for cid in all { try await ann.client.channel(cid).sendMessage(text: "hi") }
                try await recorder.wait(timeout: .seconds(30)) { $0.count == 300 }
                #expect(Set(recorder.all) == Set(all.map { "\($0.id) hi" }))
                try await Self.expectAnswered(all, text: "seen hi", times: 1, as: ann)
            }
        }
    }

    @Test("a server restart while 300 channels get messages: 2 /sync calls heal every gap; nothing lost, nothing twice")
    func restartHealsInBatches() async throws {
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:lobby")
            try await server.client(as: "keeper").upsertUsers([User(id: "keeper")])
            let all = Self.channels(300)
            try await Self.create(all, members: ["ann", "keeper"], by: ann)
            let recorder = Recorder<String>()
            // Silence is not taken for a dead connection before the restart: the gap is the restart's.
            var configuration = TestChatServer.testBotConfiguration
            configuration.connection.serverHealthCheckInterval = .seconds(30)
            try await server.withBot(Self.answeringBot(recorder), channels: all, configuration: configuration) { running in
                for cid in all { try await ann.client.channel(cid).sendMessage(text: "before") }
                try await recorder.wait(timeout: .seconds(30)) { $0.count == 300 }
                // The bot hears nothing more; what is sent now is only in the channels' history.
                await server.server.silence("keeper")
                for cid in all { try await ann.client.channel(cid).sendMessage(text: "gap") }
                try await server.restart(downtime: .milliseconds(300))
                try await recorder.wait(timeout: .seconds(30)) { $0.count >= 600 }
                try await eventually("the bot reports its reconnect") { running.service.connection.lastWatchReport?.isReconnect == true }
                let made = Self.calls(server)
                // 10 full pages of member channels and an empty one; 300 channels in 2 /sync calls.
                #expect(made[.queryChannels] == 11)
                #expect(made[.sync] == 2)
                #expect(made[.getOrCreateChannel] == nil)
                let report = try #require(running.service.connection.lastWatchReport)
                #expect(report.watched == 300 && report.synced == 300 && report.syncedEvents >= 300)
                try await Task.sleep(for: .milliseconds(300))
                try await Self.expectAnswered(all, text: "seen gap", times: 1, as: ann)
            }
            #expect(recorder.all.count == 600)
            #expect(Set(recorder.all) == Set(all.flatMap { ["\($0.id) before", "\($0.id) gap"] }))
        }
    }

    @Test("a channel listed three times is reported once, and joined and watched once")
    func duplicatesOnce() async throws {
        try await TestChatServer.withServer { server in
            let log = LogLines()
            let client = server.client(as: "keeper")
            let service = BotService(
                bot: Self.answeringBot(Recorder()), client: client, channels: ["messaging:a", "messaging:b", "messaging:a", "messaging:a"],
                configuration: TestChatServer.testBotConfiguration, logger: log.logger)
            let group = ServiceGroup(configuration: .init(services: [service], gracefulShutdownSignals: [], logger: log.logger))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                try await service.waitUntilReady()
                #expect(service.channels == ["messaging:a", "messaging:b"])
                #expect(service.duplicateChannels.map { $0.cid } == ["messaging:a"] && service.duplicateChannels.map { $0.times } == [3])
                #expect(service.connection.watchedChannels == ["messaging:a", "messaging:b"])
                #expect(service.connection.lastWatchReport?.created == 2)
                let warnings = log.lines(at: .warning).filter { $0.contains("messaging:a") }
                #expect(warnings == ["Bot keeper lists messaging:a 3 times; it is joined and watched once"])
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
        }
    }

    @Test("a channel the bot may not join (403) is named in the error; it runs in the other channels")
    func refusedChannelNamed() async throws {
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:open")
            // The service refuses both creating and joining it, as for a channel type the bot's role may not join.
            server.server.injectFault(InjectedFault(pathContains: "/channels/messaging/locked", status: 403, code: 17, count: 10))
            let recorder = Recorder<String>()
            let registry = PrometheusCollectorRegistry()
            try await server.withBot(
                Self.answeringBot(recorder), channels: ["messaging:locked", "messaging:open"], metricsFactory: PrometheusMetricsFactory(registry: registry)
            ) { running in
                let refused = running.service.refusedChannels
                #expect(refused.map(\.cid) == ["messaging:locked"])
                #expect(refused.first?.httpStatus == 403)
                #expect(refused.first?.description.hasPrefix("messaging:locked: ") == true)
                #expect(running.service.connection.watchedChannels == ["messaging:open"])
                #expect(MetricSamples(registry.emitToString())["chatbotkit_watched_channels", ["user": "keeper"]] == 1)
                let sent = try await ann.send(text: "still here")
                #expect(try await ann.replies(to: sent, from: "keeper").map(\.text) == ["seen still here"])
            }
        }
    }

    /// Each of `cids` has `times` messages by the bot saying `text`, read a page of channels at a time.
    static func expectAnswered(_ cids: [ChannelId], text: String, times: Int, as ann: TestUser) async throws {
        for start in stride(from: 0, to: cids.count, by: ChatClient.channelPageSize) {
            let page = Array(cids[start..<min(cids.count, start + ChatClient.channelPageSize)])
            try await eventually("the bot answered \(text) in \(page.first!)…") {
                let states = try await ann.client.queryChannels(
                    filter: ["cid": ["$in": .array(page.map { .string($0.rawValue) })]], limit: page.count, messageLimit: 10)
                return states.count == page.count
                    && states.allSatisfy { state in state.messages.filter { $0.user?.id == "keeper" && $0.text == text }.count == times }
            }
        }
    }
}
