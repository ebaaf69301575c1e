import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing
import WorkoutBot

@Suite("Example: the workout bot tracks runs shared as live locations")
struct WorkoutTrackingTests {
    /// 0.009 degrees of latitude, in meters, as the bot measures it.
    static let step = SharedLocation.meters(fromLatitude: 52.52, longitude: 13.405, toLatitude: 52.529, longitude: 13.405)

    @Test("a live location shared as a ride, moved twice and stopped is logged once as a 2.0 km ride, with the week's summary")
    func stoppedRide() async throws {
        let data = try ScratchFolder()
        let store = try WorkoutStore(url: data.path("workouts.sqlite"))
        let bot = WorkoutBot.make(name: "workout", user: User(id: "workout-bot"), store: store, nudge: .seconds(3600))
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let shared = try await ann.shareLocation(latitude: 52.52, longitude: 13.405, for: .seconds(3600), text: "ride along the river")
                let until = try #require(shared.sharedLocation?.endAt)
                try await eventually("the bot says it tracks the ride") { try await ann.client.replies(to: shared.id).count == 1 }
                let clock = RFC3339.string(from: until).dropFirst(11).prefix(5)
                #expect(
                    try await ann.client.replies(to: shared.id).first?.text
                        == "Tracking your ride until \(clock) UTC. Stop sharing your location when you finish and I'll log it.")
                #expect(try await server.client(as: "admin").queryReminders(as: "workout-bot").reminders.map(\.messageId) == [shared.id])

                try await ann.moveLocation(of: shared, toLatitude: 52.529, longitude: 13.405)
                try await ann.moveLocation(of: shared, toLatitude: 52.538, longitude: 13.405)
                try await eventually("both moves are counted") { (try store.track(shared.id)?.meters ?? 0) > Self.step * 1.5 }
                #expect(abs((try store.track(shared.id)?.meters ?? 0) - 2 * Self.step) < 0.01)
                try await ann.stopSharingLocation(of: shared)

                let summary = try #require(try await ann.replies(to: shared, from: "workout-bot").first { $0.parentId == nil })
                #expect(summary.text.hasPrefix("Logged your ride: 2.0 km in 0m "))
                #expect(summary.text.contains("This week: 1 workout, 2.0 km"))
                #expect(summary.attachments.map(\.type) == [.workoutSummary])
                let logged = try store.workouts(of: "ann")
                #expect(logged.count == 1 && logged.first?.type == "ride" && logged.first?.distanceMeters == Int((2 * Self.step).rounded()))
                #expect(logged.first?.messageId == shared.id)
                try await eventually("the track's reminder goes") {
                    try await server.client(as: "admin").queryReminders(as: "workout-bot").reminders.isEmpty
                }
                #expect(try store.track(shared.id)?.isFinished == true)
            }
        }
    }

    @Test("a share that runs out is logged when it ends (the bot's reminder); one that never moved logs nothing; a static one is left alone")
    func expiredAndIdleShares() async throws {
        let data = try ScratchFolder()
        let store = try WorkoutStore(url: data.path("workouts.sqlite"))
        let bot = WorkoutBot.make(name: "workout", user: User(id: "workout-bot"), store: store)
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let bob = try await TestUser.join(server, id: "bob", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let fixed = try await bob.shareLocation(latitude: 1, longitude: 1, text: "I'm here")
                let run = try await ann.shareLocation(latitude: 52.52, longitude: 13.405, for: .seconds(3))
                let idle = try await bob.shareLocation(latitude: 1, longitude: 1, for: .seconds(600), text: "walk")
                try await eventually("both live shares are tracked") {
                    let (runReplies, idleReplies) = (try await ann.client.replies(to: run.id), try await bob.client.replies(to: idle.id))
                    return runReplies.count == 1 && idleReplies.count == 1
                }
                try await ann.moveLocation(of: run, toLatitude: 52.529, longitude: 13.405)
                try await bob.stopSharingLocation(of: idle)
                try await eventually("the idle walk is answered in its thread") { try await bob.client.replies(to: idle.id).count == 2 }
                #expect(try await bob.client.replies(to: idle.id).last?.text == "Your walk did not move from where it started, so nothing was logged.")

                let summary = try #require(
                    try await ann.replies(to: run, from: "workout-bot", timeout: .seconds(15)).first { $0.text.hasPrefix("Logged") })
                #expect(summary.text.hasPrefix("Logged your run: 1.0 km in 0m 0"))
                #expect(try store.workouts(of: "ann").map(\.distanceMeters) == [Int(Self.step.rounded())])
                #expect(try store.workouts(of: "bob").isEmpty)
                #expect(try await bob.client.replies(to: fixed.id).isEmpty, "a static location is not a run")
                try await eventually("the reminders go once handled") {
                    try await server.client(as: "admin").queryReminders(as: "workout-bot").reminders.isEmpty
                }
            }
        }
    }
}
