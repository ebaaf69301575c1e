import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Foundation
import Prometheus
import Testing

@Suite("Catching up after a restart: what was sent while a bot was stopped is handled, and nothing twice")
struct CatchUpTests {
    /// A bot that records each message, edit and deletion it handles, with its channel.
    static func recordingBot(_ recorder: Recorder<String>) -> Bot {
        let bot = Bot(name: "keeper")
        bot.onMessage { context in recorder.record("\(context.channel.cid.id) new \(context.message.text)") }
        bot.onMessageUpdated { context in recorder.record("\(context.channel.cid.id) edit \(context.message.text)") }
        bot.onMessageDeleted { deletion, context in recorder.record("\(context.channel.cid.id) deleted \(deletion.message.text)") }
        return bot
    }

    /// The test bots' configuration, keeping a checkpoint at `file` saved every 50 ms.
    static func configuration(_ file: URL, maximumAge: Duration = .seconds(3600), drainDeadline: Duration = .seconds(5))
        -> BotService.Configuration
    {
        var configuration = TestChatServer.testBotConfiguration
        configuration.catchUp = BotService.CatchUp(checkpointFile: file, maximumAge: maximumAge, saveInterval: .milliseconds(50))
        configuration.drainDeadline = drainDeadline
        return configuration
    }

    @Test("messages, edits and deletions made while the bot was stopped reach it when it starts again, in two channels, none twice")
    func catchesUp() async throws {
        let scratch = try ScratchFolder("checkpoint")
        let file = scratch.path("checkpoint/keeper.json")
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let bob = try await TestUser.join(server, id: "bob", channel: "messaging:other")
            // Before the bot ever ran: a first start has no checkpoint and begins from now.
            try await ann.send(text: "before")

            let first = Recorder<String>()
            let (kept, gone) = try await server.withBot(
                Self.recordingBot(first), channels: ["messaging:general", "messaging:other"], configuration: Self.configuration(file)
            ) { _ in
                let kept = try await ann.send(text: "a")
                let gone = try await bob.send(text: "b")
                try await first.wait { $0.count == 2 }
                return (kept, gone)
            }
            #expect(Set(first.all) == ["general new a", "other new b"])
            let saved = try #require(try BotCheckpoint.load(from: file))
            #expect(saved.bot == "keeper")
            #expect(saved.handledThrough >= gone.createdAt!)
            #expect(Set(saved.recentlyHandled).isSuperset(of: [kept.id, gone.id]))

            // While the bot is stopped.
            try await ann.send(text: "c")
            try await bob.send(text: "d")
            _ = try await ann.client.updateMessage(kept.id, text: "a, edited")
            _ = try await bob.client.deleteMessage(gone.id)

            let second = Recorder<String>()
            try await server.withBot(
                Self.recordingBot(second), channels: ["messaging:general", "messaging:other"], configuration: Self.configuration(file)
            ) { _ in
                try await second.wait { $0.count == 4 }
                try await ann.send(text: "e")
                try await second.wait { $0.count == 5 }
                try await Task.sleep(for: .milliseconds(300))
            }
            // In order within each channel; "before", "a" and "b" are not handled again.
            #expect(second.all.filter { $0.hasPrefix("general") } == ["general new c", "general edit a, edited", "general new e"])
            #expect(second.all.filter { $0.hasPrefix("other") } == ["other new d", "other deleted b"])
        }
    }

    @Test("a handler cut off by the drain deadline gets its message again at the next start; the ones that finished do not")
    func cutOffHandlerRunsAgain() async throws {
        let scratch = try ScratchFolder("checkpoint")
        let file = scratch.path("checkpoint/keeper.json")
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let bob = try await TestUser.join(server, id: "bob", channel: "messaging:other")
            let first = Recorder<String>()
            let slowBot = Bot(name: "keeper")
            slowBot.onMessage { context in
                first.record("started \(context.message.text)")
                if context.message.text == "slow" { try await Task.sleep(for: .seconds(60)) }
                first.record("finished \(context.message.text)")
            }
            try await server.withBot(
                slowBot, channels: ["messaging:general", "messaging:other"],
                configuration: Self.configuration(file, drainDeadline: .milliseconds(200))
            ) { _ in
                try await ann.send(text: "slow")
                try await first.wait { $0.contains("started slow") }
                try await bob.send(text: "quick")
                try await first.wait { $0.contains("finished quick") }
                // Saved with "quick" handled and "slow" still running.
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(!first.all.contains("finished slow"))

            let second = Recorder<String>()
            try await server.withBot(
                Self.recordingBot(second), channels: ["messaging:general", "messaging:other"], configuration: Self.configuration(file)
            ) { _ in
                try await second.wait { $0.contains("general new slow") }
                try await Task.sleep(for: .milliseconds(300))
            }
            #expect(second.all == ["general new slow"])
        }
    }

    @Test("a bot stopped for longer than maximumAge catches up on the last stretch only")
    func maximumAge() async throws {
        let scratch = try ScratchFolder("checkpoint")
        let file = scratch.path("checkpoint/keeper.json")
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            // A checkpoint from an hour ago, as if the bot had stopped then.
            try BotCheckpoint(bot: "keeper", handledThrough: Date().addingTimeInterval(-3600), recentlyHandled: []).save(to: file)
            // The bot starts well within 4 s of "recent" (even under a sanitizer), and 5 s after "too old".
            try await ann.send(text: "too old")
            try await Task.sleep(for: .seconds(5))
            try await ann.send(text: "recent")
            let recorder = Recorder<String>()
            try await server.withBot(
                Self.recordingBot(recorder), channels: ["messaging:general"], configuration: Self.configuration(file, maximumAge: .seconds(4))
            ) { _ in
                try await recorder.wait { $0.contains("general new recent") }
                try await Task.sleep(for: .milliseconds(300))
            }
            #expect(recorder.all == ["general new recent"])
        }
    }

    @Test("a bot that ran saves its checkpoint even when nothing happened, so its savedAt says when it last ran")
    func stopSaves() async throws {
        let scratch = try ScratchFolder("checkpoint")
        let file = scratch.path("checkpoint/keeper.json")
        let handledThrough = Date().addingTimeInterval(-60)
        try BotCheckpoint(bot: "keeper", handledThrough: handledThrough, recentlyHandled: ["m1"], savedAt: Date().addingTimeInterval(-3600))
            .save(to: file)
        let started = Date()
        try await TestChatServer.withServer { server in
            try await server.withBot(
                Self.recordingBot(Recorder<String>()), channels: ["messaging:quiet"], configuration: Self.configuration(file)) { _ in }
        }
        let saved = try #require(try BotCheckpoint.load(from: file))
        #expect(saved.savedAt >= started)
        #expect(saved.handledThrough >= handledThrough, "only what the bot saw since moves it")
    }

    @Test("a new bot in a quiet channel keeps a checkpoint from when it was ready, so what is posted while it is stopped reaches it at the next start")
    func quietBotCatchesUp() async throws {
        let scratch = try ScratchFolder("checkpoint")
        let file = scratch.path("checkpoint/keeper.json")
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:quiet")
            let started = Date()
            try await server.withBot(
                Self.recordingBot(Recorder<String>()), channels: ["messaging:quiet"], configuration: Self.configuration(file)
            ) { _ in
                // Saved while it runs (a crash would not lose it), not only when it stops.
                try await eventually("the checkpoint is saved") { (try? BotCheckpoint.load(from: file)) != nil }
            }
            let saved = try #require(try BotCheckpoint.load(from: file))
            #expect(saved.handledThrough >= started && saved.handledThrough <= Date())
            #expect(saved.recentlyHandled.isEmpty)

            try await ann.send(text: "while stopped")
            let second = Recorder<String>()
            try await server.withBot(Self.recordingBot(second), channels: ["messaging:quiet"], configuration: Self.configuration(file)) { _ in
                try await second.wait { $0.count == 1 }
            }
            #expect(second.all == ["quiet new while stopped"])
        }
    }

    @Test("a channel with more events than /sync returns is skipped, counted and logged; the other channels catch up and live messages flow")
    func tooManyEventsToSync() async throws {
        let scratch = try ScratchFolder("checkpoint")
        let file = scratch.path("checkpoint/keeper.json")
        try await TestChatServer.withServer(configure: { $0.maximumSyncedEvents = 10 }) { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let bob = try await TestUser.join(server, id: "bob", channel: "messaging:other")
            let first = Recorder<String>()
            try await server.withBot(
                Self.recordingBot(first), channels: ["messaging:general", "messaging:other"], configuration: Self.configuration(file)
            ) { _ in
                try await ann.send(text: "hello")
                try await first.wait { $0.count == 1 }
            }
            // Twelve in general (more than the server syncs), two in other.
            for index in 0..<12 { try await ann.send(text: "g\(index)") }
            for index in 0..<2 { try await bob.send(text: "o\(index)") }

            let registry = PrometheusCollectorRegistry()
            let second = Recorder<String>()
            try await server.withBot(
                Self.recordingBot(second), channels: ["messaging:general", "messaging:other"], configuration: Self.configuration(file),
                metricsFactory: PrometheusMetricsFactory(registry: registry)
            ) { _ in
                try await second.wait { $0.count == 2 }
                try await ann.send(text: "live")
                try await second.wait { $0.contains("general new live") }
                try await Task.sleep(for: .milliseconds(300))
            }
            #expect(second.all == ["other new o0", "other new o1", "general new live"])
            let samples = MetricSamples(registry.emitToString())
            #expect(samples["chatbotkit_unsynced_channels_total", ["user": "keeper"]] == 1)
        }
    }

    @Test("an unreadable checkpoint is kept aside as .unreadable, and the bot starts from now and saves a new one")
    func unreadableCheckpoint() async throws {
        let scratch = try ScratchFolder("checkpoint")
        let file = scratch.path("checkpoint/keeper.json")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("{\"version\":1,\"bot\":\"keeper\"".utf8).write(to: file)
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let recorder = Recorder<String>()
            try await server.withBot(
                Self.recordingBot(recorder), channels: ["messaging:general"], configuration: Self.configuration(file)
            ) { _ in
                try await ann.send(text: "after")
                try await recorder.wait { $0 == ["general new after"] }
            }
            let aside = try String(contentsOf: file.appendingPathExtension("unreadable"), encoding: .utf8)
            #expect(aside == "{\"version\":1,\"bot\":\"keeper\"")
            #expect(try BotCheckpoint.load(from: file)?.bot == "keeper")
        }
    }

    @Test("what each unreadable checkpoint gets: an error naming the file and what is wrong")
    func checkpointErrors() throws {
        let scratch = try ScratchFolder("checkpoint")
        let file = scratch.path("checkpoint/keeper.json")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        #expect(try BotCheckpoint.load(from: file) == nil)
        let now = RFC3339.string(from: Date())
        let cases: [(String, String)] = [
            ("not json", "it is not JSON"),
            (#"{"version":2,"bot":"keeper","watching_since":"\#(now)","handled_through":"\#(now)","recently_handled":[],"saved_at":"\#(now)"}"#, "version 2 is not one this build reads (1)"),
            (#"{"version":1,"watching_since":"\#(now)","handled_through":"\#(now)","recently_handled":[],"saved_at":"\#(now)"}"#, "\"bot\" is missing"),
            (#"{"version":1,"bot":"keeper","watching_since":"\#(now)","handled_through":"yesterday","recently_handled":[],"saved_at":"\#(now)"}"#, "\"yesterday\" is not an RFC 3339 date"),
            (#"{"version":1,"bot":"keeper","watching_since":"\#(now)","handled_through":"\#(now)","recently_handled":"m1","saved_at":"\#(now)"}"#, "\"recently_handled\" is not"),
        ]
        for (text, reason) in cases {
            try Data(text.utf8).write(to: file)
            let error = #expect(throws: BotError.self) { try BotCheckpoint.load(from: file) }
            #expect(error?.code == .checkpointUnreadable)
            #expect(error?.message.hasPrefix("the checkpoint \(file.path) cannot be read: ") == true)
            #expect(error?.message.contains(reason) == true, "\(error?.message ?? "") should say \(reason)")
        }
        // A round trip keeps everything, to the microsecond.
        let checkpoint = BotCheckpoint(
            bot: "keeper", watchingSince: RFC3339.date(from: "2026-11-24T09:00:00Z")!,
            handledThrough: RFC3339.date(from: "2026-11-25T10:00:00.123456Z")!, recentlyHandled: ["m1", "m2\nupdated x"],
            savedAt: RFC3339.date(from: "2026-11-25T10:00:01Z")!)
        try checkpoint.save(to: file)
        #expect(try BotCheckpoint.load(from: file) == checkpoint)
    }
}
