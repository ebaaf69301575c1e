import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Prometheus
import Testing

@Suite("Schedules: handlers run every so often, daily or weekly, in each of the bot's channels")
struct ScheduleTests {
    static let utc = TimeZone(identifier: "UTC")!
    /// Wednesday 2026-11-25 10:17:30 UTC.
    static let wednesday = date("2026-11-25T10:17:30Z")

    static func date(_ text: String) -> Date { RFC3339.date(from: text)! }

    @Test("the next run: intervals on their multiples since the epoch, days and weeks at their time in their time zone")
    func nextRuns() {
        #expect(Schedule.every(.seconds(3600)).nextRun(after: Self.wednesday) == Self.date("2026-11-25T11:00:00Z"))
        #expect(Schedule.every(.seconds(900)).nextRun(after: Self.date("2026-11-25T10:15:00Z")) == Self.date("2026-11-25T10:30:00Z"))
        #expect(Schedule.daily(at: 9).nextRun(after: Self.wednesday) == Self.date("2026-11-26T09:00:00Z"))
        #expect(Schedule.daily(at: 10, 30).nextRun(after: Self.wednesday) == Self.date("2026-11-25T10:30:00Z"))
        #expect(Schedule.weekly(on: .monday, at: 9).nextRun(after: Self.wednesday) == Self.date("2026-11-30T09:00:00Z"))
        #expect(Schedule.weekly(on: .wednesday, at: 10, 18).nextRun(after: Self.wednesday) == Self.date("2026-11-25T10:18:00Z"))
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        #expect(Schedule.daily(at: 9, in: berlin).nextRun(after: Self.wednesday) == Self.date("2026-11-26T08:00:00Z"), "09:00 in Berlin is 08:00 UTC in winter")
        #expect(Schedule.daily(at: 9, in: berlin).nextRun(after: Self.date("2026-07-01T12:00:00Z")) == Self.date("2026-07-02T07:00:00Z"), "and 07:00 UTC in summer")
    }

    @Test("what is due when the clock moves on: the last run passed over, once")
    func lastRuns() {
        let hourly = Schedule.every(.seconds(3600))
        #expect(hourly.lastRun(after: Self.wednesday, upTo: Self.wednesday.addingTimeInterval(60)) == nil)
        #expect(hourly.lastRun(after: Self.wednesday, upTo: Self.date("2026-11-25T11:00:00Z")) == Self.date("2026-11-25T11:00:00Z"))
        #expect(hourly.lastRun(after: Self.wednesday, upTo: Self.date("2026-11-25T15:30:00Z")) == Self.date("2026-11-25T15:00:00Z"))
        #expect(hourly.lastRun(after: Self.date("2026-11-25T11:00:00Z"), upTo: Self.date("2026-11-25T11:00:00Z")) == nil, "a run is due once")
        let daily = Schedule.daily(at: 9)
        #expect(daily.lastRun(after: Self.wednesday, upTo: Self.date("2026-11-28T12:00:00Z")) == Self.date("2026-11-28T09:00:00Z"))
        #expect(daily.lastRun(after: Self.wednesday, upTo: Self.date("2026-11-26T08:59:59Z")) == nil)
    }

    @Test("as bots.yaml writes them", arguments: [
        ("every 30m", "every 30m"), ("every 1s", "every 1s"), ("daily 09:00", "daily 09:00 UTC"), ("Daily 18:30 Europe/Berlin", "daily 18:30 Europe/Berlin"),
        ("mon 09:00", "monday 09:00 UTC"), ("weekly friday 17:05", "friday 17:05 UTC"), ("sun 00:00 America/New_York", "sunday 00:00 America/New_York"),
    ])
    func parsing(_ text: String, _ description: String) throws {
        #expect(try Schedule(parsing: text).description == description)
    }

    @Test("what each schedule that cannot be read gets", arguments: [
        ("", "it is empty"),
        ("every", "after every comes a duration of at least a second, such as every 30m"),
        ("every 500ms", "after every comes a duration of at least a second, such as every 30m"),
        ("every day", "after every comes a duration of at least a second, such as every 30m"),
        ("hourly", "it starts with every, daily or a day of the week (mon, tue, …)"),
        ("weekly daily 09:00", "it starts with every, daily or a day of the week (mon, tue, …)"),
        ("mon", "a time of day comes next, 00:00 to 23:59, such as 09:00"),
        ("daily 9am", "a time of day comes next, 00:00 to 23:59, such as 09:00"),
        ("daily 24:00", "a time of day comes next, 00:00 to 23:59, such as 09:00"),
        ("daily 09:00 Mars/Olympus", "Mars/Olympus is not a time zone, such as UTC or Europe/Berlin"),
        ("daily 09:00 UTC please", "UTC please is not a time zone, such as UTC or Europe/Berlin"),
    ])
    func unreadable(_ text: String, _ reason: String) {
        let error = #expect(throws: ScheduleError.self) { try Schedule(parsing: text) }
        #expect(error?.description == "[bot.schedule_unreadable] \"\(text)\" is not a schedule: \(reason)")
    }

    @Test("a run posts once in each of the bot's channels, in order with their messages; a failing run is reported; the metric counts runs")
    func runsInEachChannel() async throws {
        try await TestChatServer.withServer { server in
            let registry = PrometheusCollectorRegistry()
            let recorder = Recorder<String>()
            let bot = Bot(name: "crier", user: User(id: "crier-bot"))
            bot.onSchedule(.every(.seconds(1)), name: "tick") { run in
                recorder.record("tick \(run.channel.cid.id)")
                try await run.post(text: "tick at \(RFC3339.string(from: run.scheduledAt))")
                // Posted twice with the same position: one message (ids derive from the run).
                if run.channel.cid.id == "general" { throw CancellationError() }
            }
            bot.onError { error, context in recorder.record("error \(context == nil ? "without context" : "?"): \(error.message)") }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await ann.client.join("messaging:other", as: "ann")
            try await server.withBot(
                bot, channels: ["messaging:general", "messaging:other"], metricsFactory: PrometheusMetricsFactory(registry: registry)
            ) { _ in
                try await recorder.wait { entries in entries.filter { $0.hasPrefix("tick") }.count >= 4 }
                let samples = MetricSamples(registry.emitToString())
                #expect((samples["chatbotkit_bot_deliveries_total", ["bot": "crier", "trigger": "schedule"]] ?? 0) >= 4)
            }
            for channel in ["messaging:general", "messaging:other"] as [ChannelId] {
                let posts = try await ann.client.queryChannel(channel, messageLimit: 100).messages.filter { $0.user?.id == "crier-bot" }
                #expect(posts.count >= 2, "\(channel)")
                #expect(Set(posts.map(\.text)).count == posts.count, "each run posts once: \(posts.map(\.text))")
                #expect(posts.allSatisfy { $0.text.hasPrefix("tick at ") && $0.text.hasSuffix(".000000Z") }, "runs fall on whole seconds")
            }
            #expect(recorder.all.contains { $0.hasPrefix("error without context: the scheduled handler tick of bot crier failed in messaging:general: ") })
        }
    }
}

@Suite("Schedules across a restart")
struct ScheduleRestartTests {
    @Test("started again with a checkpoint, a bot in a quiet channel makes up the last run of each schedule it missed while stopped, once; without one, none")
    func makesUpMissedRuns() async throws {
        let scratch = try ScratchFolder("checkpoint")
        let file = scratch.path("checkpoint/keeper.json")
        try await TestChatServer.withServer { server in
            _ = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let runs = Recorder<String>()
            func crier() -> Bot {
                let bot = Bot(name: "keeper")
                bot.onSchedule(.every(.seconds(1)), name: "tick") { run in
                    runs.record((run.isMadeUp ? "made up " : "") + RFC3339.string(from: run.scheduledAt))
                }
                return bot
            }
            // The channel stays quiet: the checkpoint is kept all the same, from when the bot was ready.
            try await server.withBot(crier(), channels: ["messaging:general"], configuration: CatchUpTests.configuration(file)) { _ in
                try await runs.wait { !$0.isEmpty }
            }
            let stopped = Date()
            try await Task.sleep(for: .milliseconds(2_500))
            let restarted = Date()
            try await server.withBot(crier(), channels: ["messaging:general"], configuration: CatchUpTests.configuration(file)) { _ in
                try await runs.wait { entries in entries.contains { !$0.hasPrefix("made up") && RFC3339.date(from: $0)! > restarted } }
            }
            let madeUp = runs.all.filter { $0.hasPrefix("made up ") }.compactMap { RFC3339.date(from: String($0.dropFirst("made up ".count))) }
            #expect(madeUp.count == 1, "the last run missed while stopped is made up, once: \(runs.all)")
            if let made = madeUp.first {
                // The last one missed: the one before it fell while the bot was stopped too.
                #expect(made > stopped.addingTimeInterval(1), "\(made) after \(stopped)")
                #expect(made < restarted.addingTimeInterval(1.5))
            }

            // Without a checkpoint, nothing is made up.
            let fresh = Recorder<String>()
            let plain = Bot(name: "plain")
            plain.onSchedule(.every(.seconds(1)), name: "tick") { run in fresh.record("\(run.isMadeUp)") }
            try await server.withBot(plain, channels: ["messaging:general"]) { _ in try await fresh.wait { !$0.isEmpty } }
            #expect(fresh.all.allSatisfy { $0 == "false" })
        }
    }
}
