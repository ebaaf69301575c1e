@testable import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("TimedWork: a schedule's runs queued once in each channel this node handles, made up after a restart")
struct TimedWorkTests {
    static let channels: [ChannelId] = ["messaging:general", "messaging:other"]

    /// A bot with `schedule`, named "report", recording "<channel> <scheduled at> <made up or not>" for each run.
    static func reportingBot(_ schedule: Schedule, _ recorder: Recorder<String>) -> Bot {
        let bot = Bot(name: "reporter")
        bot.onSchedule(schedule, name: "report") { run in
            recorder.record("\(run.channel.cid.id) \(RFC3339.string(from: run.scheduledAt)) \(run.isMadeUp ? "made up" : "on time")")
        }
        return bot
    }

    /// Runs `timedWork` of a ready bot for the duration of `body`, then stops it as a bot
    /// draining does: nothing more is queued, what was queued is handled.
    static func whileRunning(_ timedWork: TimedWork, _ body: () async throws -> Void) async throws {
        let readiness = BotReadiness()
        readiness.settle(.success(()))
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await timedWork.run(after: readiness) }
            try await body()
            timedWork.stop()
            try await eventually("what was queued is handled") { !timedWork.pipeline.hasPendingWork }
            group.cancelAll()
        }
    }

    @Test("each run of a schedule is queued once in each channel, as it falls due")
    func onTime() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let pipeline = DeliveryPipeline.forTest(Self.reportingBot(.every(.seconds(1)), recorder), on: server, channels: Self.channels)
            let timedWork = TimedWork(pipeline: pipeline, channels: { Self.channels })
            try await Self.whileRunning(timedWork) {
                try await recorder.wait { entries in entries.contains { $0.hasPrefix("general ") } && entries.contains { $0.hasPrefix("other ") } }
            }
            let runs = recorder.all
            #expect(Set(runs).count == runs.count, "each run once in each channel: \(runs)")
            let times = { (channel: String) in Set(runs.filter { $0.hasPrefix(channel + " ") }.map { $0.dropFirst(channel.count + 1) }) }
            #expect(times("general") == times("other"), "every run in both channels: \(runs)")
            #expect(runs.allSatisfy { $0.hasSuffix(" on time") })
        }
    }

    @Test("after a restart, the last run missed while the bot was stopped is made up once in each channel, unless handled before")
    func madeUp() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let daily = Schedule.every(.seconds(86_400))
            let pipeline = DeliveryPipeline.forTest(Self.reportingBot(daily, recorder), on: server, channels: Self.channels)
            let stoppedAt = Date().addingTimeInterval(-2 * 86_400)
            let missed = try #require(daily.lastRun(after: stoppedAt, upTo: Date()))
            // The third channel's last holder ran it before this node took the channel over.
            let third: ChannelId = "messaging:third"
            pipeline.remember([Delivery(schedule: "report", at: missed, in: third).key])
            let timedWork = TimedWork(pipeline: pipeline, channels: { Self.channels + [third] })
            timedWork.resume(from: stoppedAt)
            try await Self.whileRunning(timedWork) {
                try await recorder.wait { $0.count >= 2 }
            }
            let at = RFC3339.string(from: missed)
            #expect(recorder.all.sorted() == ["general \(at) made up", "other \(at) made up"])
        }
    }
}
