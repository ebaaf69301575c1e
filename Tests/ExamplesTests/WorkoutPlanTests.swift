import ChatBotKitConfiguration
import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing
import WorkoutBot

@Suite("Example: the workout bot plans the group run with a poll")
struct WorkoutPlanTests {
    @Test("/plan sends a single-choice poll that closes on time (a reminder) with the winning day said in its thread; a bad /plan gets the usage")
    func plansTheGroupRun() async throws {
        let data = try ScratchFolder()
        let store = try WorkoutStore(url: data.path("workouts.sqlite"))
        let bot = WorkoutBot.make(name: "workout", user: User(id: "workout-bot"), store: store, nudge: .seconds(3600), planCloses: .seconds(2))
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let bob = try await TestUser.join(server, id: "bob", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let bad = try await ann.send(text: "/plan sat sat")
                #expect(
                    try await ann.replies(to: bad, from: "workout-bot").first?.text
                        == "Say /plan sat sun: two to ten different days (or anything else to choose from).")
                let command = try await ann.send(text: "/plan Sat Sun Mon")
                let plan = try #require(try await ann.replies(to: command, from: "workout-bot").first { $0.pollId != nil })
                let poll = try #require(plan.poll)
                #expect(poll.name == "Group run: which day?" && poll.options.map(\.text) == ["Sat", "Sun", "Mon"] && poll.isSingleChoice)
                try await ann.client.castPollVote(on: plan.id, poll: poll.id, option: poll.options[0].id)
                try await ann.client.castPollVote(on: plan.id, poll: poll.id, option: poll.options[1].id)
                try await bob.client.castPollVote(on: plan.id, poll: poll.id, option: poll.options[1].id)

                try await eventually("the poll closes and the bot says the day", timeout: .seconds(10)) {
                    try await ann.client.replies(to: plan.id).count == 1
                }
                #expect(try await ann.client.replies(to: plan.id).first?.text == "Group run on Sun (2 votes).")
                #expect(try await ann.client.poll(poll.id).isClosed)
                try await eventually("the plan's reminder is deleted once handled") {
                    try await server.client(as: "admin").queryReminders(as: "workout-bot").reminders.isEmpty
                }
            }
        }
    }

    @Test("what the bot says when a plan closes: the day, a tie, or nobody voted")
    func verdicts() throws {
        func poll(_ counts: [String: Int]) throws -> Poll {
            let options: [RawJSON] = ["a", "b"].map { ["id": .string($0), "text": .string($0.uppercased())] }
            let votes = JSONObject(counts.map { ($0.key, RawJSON.number(JSONNumber($0.value))) })
            return try Poll(json: ["id": "p", "name": "Day?", "options": .array(options), "vote_counts_by_option": .object(votes)], operation: "test")
        }
        #expect(WorkoutBot.verdict(try poll(["a": 1])) == "Group run on A (1 vote).")
        #expect(WorkoutBot.verdict(try poll(["a": 2, "b": 2])) == "A tie between A and B (2 votes each): /plan again?")
        #expect(WorkoutBot.verdict(try poll([:])) == "Nobody voted, so no group run this time.")
    }

    @Test("its bots.yaml entry takes plan_closes as a duration; anything else is a located error")
    func configuration() throws {
        let data = try ScratchFolder()
        let entry = try botEntry("name: workout\nkind: workout\nuser: workout-bot\nchannels: [messaging:general]\nplan_closes: 2h")
        _ = try WorkoutBot.makeBot(entry, environment: data.environment)
        let bad = try botEntry("name: workout\nkind: workout\nchannels: [messaging:general]\nplan_closes: soon")
        #expect {
            _ = try WorkoutBot.makeBot(bad, environment: data.environment)
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.line == 6 && error.message.contains("soon")
        }
    }
}
