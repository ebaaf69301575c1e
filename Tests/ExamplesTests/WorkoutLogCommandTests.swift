import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing
import WorkoutBot

@Suite("Example: the workout bot's /log custom command")
struct WorkoutLogCommandTests {
    /// Runs the workout bot on `store` with its custom commands answered, and `body` as Ann in messaging:general.
    static func withLogCommand(_ store: WorkoutStore, _ body: (TestUser) async throws -> Void) async throws {
        let bot = WorkoutBot.make(name: "workout", user: User(id: "workout-bot"), store: store)
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withCustomCommands { commands in
                var configuration = TestChatServer.testBotConfiguration
                configuration.commands = commands
                try await server.withBot(bot, channels: ["messaging:general"], configuration: configuration) { _ in try await body(ann) }
            }
        }
    }

    @Test("/log shows the sender the workout to post with Log and Cancel; Log posts it, and the bot records and sums it up")
    func logAWorkout() async throws {
        let data = try ScratchFolder()
        let store = try WorkoutStore(url: data.path("workouts.sqlite"))
        try await Self.withLogCommand(store) { ann in
            let question = try await ann.send(text: "/log run 5km 25m 400kcal")
            #expect(question.type == .ephemeral)
            #expect(question.text == "Log 5.0 km run in 25m, 400 kcal?")
            let preview = try #require(question.attachments(payloadType: WorkoutAttachmentPayload.self).first)
            #expect(preview.payload == WorkoutAttachmentPayload(workoutDistanceMeters: 5000, workoutType: "run", workoutDurationSeconds: 1500, workoutEnergyCal: 400))
            #expect(question.attachments.last?.rawJSON["actions"]?.arrayValue?.count == 2)

            let posted = try #require(try await ann.client.runMessageAction(question.id, formData: ["action": "log"]))
            #expect(posted.type == .regular)
            #expect(posted.user?.id == "ann")
            #expect(posted.text == "5.0 km run in 25m, 400 kcal (logged with /log)")
            #expect(posted.attachments.map(\.type) == [.workout])
            let reply = try #require(try await ann.replies(to: posted, from: "workout-bot").first)
            #expect(reply.text == "This week: 1 workout, 5.0 km, 0h 25m, 400 kcal.")

            let cancelled = try await ann.send(text: "/log ride 20km")
            #expect(try await ann.client.runMessageAction(cancelled.id, formData: ["action": "cancel"]) == nil)
        }
        #expect(try store.workouts(of: "ann").map(\.distanceMeters) == [5000])
    }

    @Test("what each unreadable /log gets its sender", arguments: [
        ("run", "Nothing to log: give a distance, a duration or an energy."),
        ("run fast 5km", "Two workout types: fast is one too many."),
        ("5km 6km", "Two distances: 6km is one too many."),
        ("run 5xyz", "\"5xyz\" is not a distance (5km), a duration (25m), an energy (400kcal) or a type (run)."),
        ("-5km", "\"-5km\" is not a distance (5km), a duration (25m), an energy (400kcal) or a type (run)."),
        ("25m 30m", "Two durations: 30m is one too many."),
        ("100kcal 5kcal", "Two energies: 5kcal is one too many."),
    ])
    func unreadable(arguments: String, expected: String) throws {
        #expect(throws: WorkoutBot.LogCommandError.self) { try WorkoutBot.typedWorkout(arguments) }
        do {
            _ = try WorkoutBot.typedWorkout(arguments)
        } catch {
            #expect(error.message == expected)
        }
    }

    @Test("an unreadable /log is refused through the service with how to type it, and nothing is posted")
    func refusedThroughTheService() async throws {
        let data = try ScratchFolder()
        try await Self.withLogCommand(try WorkoutStore(url: data.path("w.sqlite"))) { ann in
            let refused = await #expect(throws: ChatClientError.self) { try await ann.send(text: "/log run") }
            #expect(refused?.message.hasSuffix("Nothing to log: give a distance, a duration or an energy. Type it as /log run 5km 25m 400kcal.") == true)
        }
    }
}
