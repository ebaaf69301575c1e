import ChatBotKitConfiguration
import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing
import WorkoutBot

@Suite("Example: the workout bot nudges members who stopped posting workouts")
struct WorkoutNudgeTests {
    @Test("a member's latest workout is nudged about in its thread once the time passed with none since; an earlier one and a deleted one are not")
    func nudges() async throws {
        let data = try ScratchFolder()
        let store = try WorkoutStore(url: data.path("workouts.sqlite"))
        let bot = WorkoutBot.make(name: "workout", user: User(id: "workout-bot"), store: store, nudge: .seconds(3))
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let bob = try await TestUser.join(server, id: "bob", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let first = try await ann.send(WorkoutBotTests.run)
                _ = try await ann.replies(to: first, from: "workout-bot")
                let second = try await ann.send(WorkoutBotTests.ride)
                _ = try await ann.replies(to: second, from: "workout-bot")
                let bobs = try await bob.send(WorkoutBotTests.run)
                _ = try await bob.replies(to: bobs, from: "workout-bot")
                try await bob.client.deleteMessage(bobs.id)
                // One reminder per member: ann's first workout's moved off to her second.
                let pending = try await server.client(as: "admin").queryReminders(as: "workout-bot").reminders
                #expect(Set(pending.map(\.messageId)) == [second.id, bobs.id])

                try await eventually("ann is nudged in her latest workout's thread") {
                    try await ann.client.replies(to: second.id).count == 1
                }
                let nudge = try #require(try await ann.client.replies(to: second.id).first)
                #expect(nudge.text == "ann, it's been 3 seconds since this ride. Time for another?")
                #expect(nudge.mentionedUsers.map(\.id) == ["ann"] && nudge.user?.id == "workout-bot")
                try await eventually("handled reminders are deleted") {
                    try await server.client(as: "admin").queryReminders(as: "workout-bot").reminders.isEmpty
                }
                #expect(try await ann.client.replies(to: first.id).isEmpty, "her earlier workout was followed by one")
                #expect(try await bob.client.replies(to: bobs.id).isEmpty, "bob deleted his workout")
            }
        }
    }

    @Test("its bots.yaml entry takes nudge as a duration; anything else is a located error")
    func configuration() throws {
        let data = try ScratchFolder()
        let entry = try botEntry("name: workout\nkind: workout\nuser: workout-bot\nchannels: [messaging:general]\nnudge: 2d")
        _ = try WorkoutBot.makeBot(entry, environment: data.environment)
        let bad = try botEntry("name: workout\nkind: workout\nchannels: [messaging:general]\nnudge: often")
        #expect {
            _ = try WorkoutBot.makeBot(bad, environment: data.environment)
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.line == 6 && error.message.contains("often")
        }
        #expect(WorkoutBot.spoken(.seconds(2 * 86_400)) == "2 days" && WorkoutBot.spoken(.seconds(5400)) == "90 minutes")
        #expect(WorkoutBot.spoken(.seconds(1)) == "1 second" && WorkoutBot.spoken(.seconds(3600)) == "1 hour")
    }
}
