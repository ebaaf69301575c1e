import ChatBotKitConfiguration
import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing
import WorkoutBot

@Suite("Example: the workout bot's scheduled report")
struct WorkoutReportTests {
    @Test("on its schedule, each channel gets its members' totals of the last seven days, the farthest first, pinned until the next; a quiet channel gets nothing")
    func reportPerChannel() async throws {
        let data = try ScratchFolder()
        let store = try WorkoutStore(url: data.path("workouts.sqlite"))
        let bot = WorkoutBot.make(name: "workout", user: User(id: "workout-bot"), store: store, report: .every(.seconds(1)))
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let bob = try await TestUser.join(server, id: "bob", channel: "messaging:general")
            let cy = try await TestUser.join(server, id: "cy", channel: "messaging:club")
            try await TestUser.join(server, id: "dee", channel: "messaging:quiet").send(text: "nobody runs here")
            try await server.withBot(bot, channels: ["messaging:general", "messaging:club", "messaging:quiet"]) { _ in
                for (user, workout) in [(ann, WorkoutBotTests.run), (bob, WorkoutBotTests.ride), (ann, WorkoutBotTests.run), (cy, WorkoutBotTests.run)] {
                    let sent = try await user.send(workout)
                    _ = try await user.replies(to: sent, from: "workout-bot")
                }
                func latestReport(in user: TestUser) async throws -> Message? {
                    try await user.client.queryChannel(user.channel, messageLimit: 100).messages
                        .last { $0.user?.id == "workout-bot" && $0.text.hasPrefix("The last 7 days") }
                }
                try await eventually("a report counts every workout") {
                    try await latestReport(in: ann)?.text == "The last 7 days: bob 21.0 km (1 workout), ann 10.4 km (2 workouts)."
                }
                let general = try #require(try await latestReport(in: ann))
                let payload = try #require(general.attachments(payloadType: WorkoutReportPayload.self).first?.payload)
                #expect(payload.entries.map(\.userId) == ["bob", "ann"])
                #expect(payload.entries.map(\.distanceMeters) == [21_000, 10_400])
                let since = try #require(RFC3339.date(from: payload.since))
                let until = try #require(RFC3339.date(from: payload.until))
                #expect(until.timeIntervalSince(since) == 7 * 86_400)
                try await eventually("the latest report is pinned by the bot until the next one is due") {
                    let pins = try await ann.client.queryChannel(ann.channel, messageLimit: 1).pinnedMessages
                    guard pins.count == 1, let pin = pins.first, pin.text.hasPrefix("The last 7 days"),
                        let report = pin.attachments(payloadType: WorkoutReportPayload.self).first?.payload,
                        let until = RFC3339.date(from: report.until), let expires = pin.pinExpires
                    else { return false }
                    return pin.pinnedBy?.id == "workout-bot" && abs(expires.timeIntervalSince(until) - 1) < 0.001
                }
                try await eventually("the club's report names its own member alone") {
                    try await latestReport(in: cy)?.text == "The last 7 days: cy 5.2 km (1 workout)."
                }
                let quiet = try await server.client(as: "dee").queryChannel("messaging:quiet", messageLimit: 100).messages
                #expect(quiet.allSatisfy { $0.user?.id != "workout-bot" }, "no report where nobody worked out")
            }
        }
    }

    @Test("report: in bots.yaml takes a schedule; one that cannot be read is located and says why")
    func configuration() throws {
        let data = try ScratchFolder()
        let entry = try botEntry("name: workout\nkind: workout\nuser: workout-bot\nchannels: [messaging:general]\nreport: mon 09:00")
        let bot = try WorkoutBot.makeBot(entry, environment: data.environment)
        #expect(bot.schedules.mapValues(\.description) == ["report": "monday 09:00 UTC"])
        let bad = try botEntry("name: workout\nkind: workout\nchannels: [messaging:general]\nreport: mondays at nine")
        let error = #expect(throws: ConfigurationError.self) { try WorkoutBot.makeBot(bad, environment: data.environment) }
        #expect(error?.line == 6)
        #expect(
            error?.message
                == "bots[0].report must be a schedule such as mon 09:00, daily 18:30 or every 1h; \"mondays at nine\" is not a schedule: it starts with every, daily or a day of the week (mon, tue, …)")
    }
}
