import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing
import WorkoutBot

@Suite("Example: the workout bot's /goal conversation")
struct WorkoutGoalTests {
    @Test("/goal asks for a distance and the workouts that count, asks again after a wrong answer, and the week's summaries then show the goal")
    func setAGoal() async throws {
        let data = try ScratchFolder()
        let store = try WorkoutStore(url: data.path("workouts.sqlite"))
        let bot = WorkoutBot.make(name: "workout", user: User(id: "workout-bot"), store: store)
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                func exchange(_ text: String) async throws -> Message {
                    let sent = try await ann.send(text: text)
                    return try #require(try await ann.replies(to: sent, from: "workout-bot").last)
                }
                #expect(try await exchange("/goal").text == "How far do you want to go each week? Say 30km. (/cancel to stop)")
                #expect(try await exchange("lots").text == "\"lots\" is not a distance. How far each week? Say 30km.")
                #expect(try await exchange("12 km").text == "Which workouts count toward 12.0 km a week? Say run, ride, swim, walk… or any.")
                // A workout posted meanwhile is recorded as usual, and the question still stands.
                let meanwhile = try await ann.send(WorkoutBotTests.run)
                #expect(try await ann.replies(to: meanwhile, from: "workout-bot").last?.text == "This week: 1 workout, 5.2 km, 0h 31m, 410 kcal.")
                #expect(try await exchange("5k runs").text == "\"5k runs\" is not a kind of workout. Say run, ride, swim, walk… or any.")
                let set = try await exchange("Run")
                #expect(set.text == "Goal set. This week: 1 workout, 5.2 km, 0h 31m, 410 kcal. Goal: 5.2 of 12.0 km of run (43%).")
                let summary = try #require(set.attachments(payloadType: WorkoutSummaryPayload.self).first?.payload)
                #expect(summary.goalDistanceMeters == 12_000)
                #expect(summary.goalType == "run")
                #expect(summary.goalProgressMeters == 5_200)

                let ride = try await ann.send(WorkoutBotTests.ride)
                let rideReply = try #require(try await ann.replies(to: ride, from: "workout-bot").last)
                #expect(rideReply.text.hasSuffix("Goal: 5.2 of 12.0 km of run (43%)."), "a ride does not count toward a running goal")
                #expect(try await exchange("/goal off").text == "Goal removed.")
                #expect(try await exchange("/goal off").text == "You have no goal to remove.")
                _ = try await exchange("/goal")
                #expect(try await exchange("/cancel").text == "OK, your goal stays as it was.")
                let afterCancel = try await ann.send(text: "20km")
                try await Task.sleep(for: .milliseconds(300))
                #expect(try await ann.replies(to: afterCancel, from: "workout-bot", count: 0).isEmpty, "after /cancel, 20km is no answer")
            }
        }
        #expect(try store.goal(of: "ann") == nil)
    }

    @Test("what answers it takes", arguments: [
        ("30km", 30_000), ("30 km", 30_000), ("12.5", 12_500), ("0.4KM", 400), ("0", nil), ("-3km", nil), ("lots", nil), ("", nil),
    ] as [(String, Int?)])
    func distances(_ answer: String, _ meters: Int?) {
        #expect(WorkoutBot.goalDistanceMeters(answer) == meters)
    }
}
