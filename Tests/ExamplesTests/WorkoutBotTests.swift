import ChatBotKitConfiguration
import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import GRDB
import Testing
import WorkoutBot

@Suite("Example: the workout bot")
struct WorkoutBotTests {
    static let run = WorkoutAttachmentPayload(workoutDistanceMeters: 5200, workoutType: "run", workoutDurationSeconds: 1860, workoutEnergyCal: 410)
    static let ride = WorkoutAttachmentPayload(workoutDistanceMeters: 21000, workoutType: "ride", workoutDurationSeconds: 3000, workoutEnergyCal: 700)

    @Test("each workout is stored and answered with this week's workout-summary payload")
    func summaries() async throws {
        let data = try ScratchFolder()
        let store = try WorkoutStore(url: data.path("workouts.sqlite"))
        let bot = WorkoutBot.make(name: "workout", user: User(id: "workout-bot"), store: store)
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let first = try await ann.send(Self.run, text: "morning run")
                let firstReply = try #require(try await ann.replies(to: first, from: "workout-bot").first)
                let firstSummary = try #require(firstReply.attachments(payloadType: WorkoutSummaryPayload.self).first)
                #expect(firstSummary.count == 1)
                #expect(firstSummary.distanceMeters == 5200)
                #expect(firstReply.text == "This week: 1 workout, 5.2 km, 0h 31m, 410 kcal.")

                let second = try await ann.send(Self.ride)
                let secondReply = try #require(try await ann.replies(to: second, from: "workout-bot").first)
                let secondSummary = try #require(secondReply.attachments(payloadType: WorkoutSummaryPayload.self).first)
                let totals: [Int] = [secondSummary.count, secondSummary.distanceMeters, secondSummary.durationSeconds, secondSummary.energyCal]
                #expect(totals == [2, 26200, 4860, 1110])
                #expect(secondSummary.userId == "ann")
            }
        }
        let stored = try store.workouts(of: "ann")
        #expect(stored.map(\.type) == ["run", "ride"])
    }

    @Test("a message with several workouts gets one summary counting them all, after the last one that can be stored")
    func severalWorkoutsInOneMessage() async throws {
        let data = try ScratchFolder()
        let store = try WorkoutStore(url: data.path("workouts.sqlite"))
        let bot = WorkoutBot.make(name: "workout", user: User(id: "workout-bot"), store: store)
        let empty = WorkoutAttachmentPayload(workoutType: "walk")
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let both = try await ann.send(
                    text: "double day",
                    attachments: [AnyAttachmentPayload(payload: Self.run), AnyAttachmentPayload(payload: Self.ride), AnyAttachmentPayload(payload: empty)])
                // The bot handles a channel's messages in order: once the next one is answered,
                // every answer to the first has been sent.
                let next = try await ann.send(text: "/workouts")
                _ = try await ann.replies(to: next, from: "workout-bot")
                let answers = try await ann.replies(to: both, from: "workout-bot", count: 3)
                #expect(answers.map(\.text) == [
                    "This week: 2 workouts, 26.2 km, 1h 21m, 1110 kcal.",
                    "Your workout could not be saved: it has no workout-distance-meters, workout-duration-seconds or workout-energy-cal.",
                    "Your 2 workouts, and your weekly distance.",
                ])
            }
        }
        #expect(try store.workouts(of: "ann").map(\.type) == ["run", "ride"])
    }

    @Test("an edit that fixes a workout replaces the stored one, a deleted workout leaves the totals; each gets the new summary")
    func editsAndDeletions() async throws {
        let data = try ScratchFolder()
        let store = try WorkoutStore(url: data.path("workouts.sqlite"))
        let bot = WorkoutBot.make(name: "workout", user: User(id: "workout-bot"), store: store)
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let run = try await ann.send(Self.run, text: "morning run")
                _ = try await ann.replies(to: run, from: "workout-bot")
                let ride = try await ann.send(Self.ride)
                _ = try await ann.replies(to: run, from: "workout-bot", count: 2)

                var measured = Self.run
                measured.workoutDistanceMeters = 6000
                try await ann.client.updateMessage(run.id, text: "morning run, measured", attachments: [AnyAttachmentPayload(payload: measured)])
                let updated = try #require(try await ann.replies(to: run, from: "workout-bot", count: 3).last)
                #expect(updated.text == "Workout updated. This week: 2 workouts, 27.0 km, 1h 21m, 1110 kcal.")
                #expect(updated.attachments(payloadType: WorkoutSummaryPayload.self).first?.distanceMeters == 27000)
                // The text alone changes: nothing stored changes, so no reply.
                try await ann.client.updateMessage(run.id, text: "morning run!", attachments: [AnyAttachmentPayload(payload: measured)])

                try await ann.client.deleteMessage(ride.id)
                let removed = try #require(try await ann.replies(to: run, from: "workout-bot", count: 4).last)
                #expect(removed.text == "Workout removed. This week: 1 workout, 6.0 km, 0h 31m, 410 kcal.")

                // An edit that breaks the workout is told which field, and the workout leaves the totals.
                try await ann.client.updateMessage(
                    run.id, text: "oops", attachments: [AnyAttachmentPayload(json: AttachmentFixtures.custom("workout", ["workout-energy-cal": "lots"]))])
                let last = try await ann.replies(to: run, from: "workout-bot", count: 6)
                #expect(last.dropFirst(4).map(\.text) == [
                    "Your edited workout could not be saved: field \"workout-energy-cal\" is wrong (expected an integer, found string \"lots\").",
                    "Workout updated. This week: 0 workouts, 0.0 km, 0h 00m, 0 kcal.",
                ])
                try await Task.sleep(for: .milliseconds(300))
                #expect(try await ann.replies(to: run, from: "workout-bot", count: 6).count == 6, "the text-only edit got no reply")
            }
        }
        #expect(try store.workouts(of: "ann").isEmpty)
    }

    @Test("a workout a moderator undeletes counts again and gets the new summary; a restored malformed one is not complained about twice")
    func undeletions() async throws {
        let data = try ScratchFolder()
        let store = try WorkoutStore(url: data.path("workouts.sqlite"))
        let bot = WorkoutBot.make(name: "workout", user: User(id: "workout-bot"), store: store)
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let moderator = server.client(as: "mod")
            try await moderator.upsertUsers([User(id: "mod")])
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let run = try await ann.send(Self.run, text: "morning run")
                let broken = try await ann.send(
                    text: "oops", attachments: [AnyAttachmentPayload(json: AttachmentFixtures.custom("workout", ["workout-energy-cal": "lots"]))])
                _ = try await ann.replies(to: run, from: "workout-bot", count: 2)
                try await ann.client.deleteMessage(run.id)
                try await ann.client.deleteMessage(broken.id)
                let removed = try #require(try await ann.replies(to: run, from: "workout-bot", count: 3).last)
                #expect(removed.text == "Workout removed. This week: 0 workouts, 0.0 km, 0h 00m, 0 kcal.")

                try await moderator.undeleteMessage(broken.id)
                try await moderator.undeleteMessage(run.id)
                let restored = try #require(try await ann.replies(to: run, from: "workout-bot", count: 4).last)
                #expect(restored.text == "Workout restored. This week: 1 workout, 5.2 km, 0h 31m, 410 kcal.")
                #expect(restored.attachments(payloadType: WorkoutSummaryPayload.self).first?.count == 1)
                try await Task.sleep(for: .milliseconds(300))
                #expect(try await ann.replies(to: run, from: "workout-bot", count: 4).count == 4, "the restored malformed workout got no second complaint")
            }
        }
        #expect(try store.workouts(of: "ann").map(\.distanceMeters) == [5200])
    }

    @Test("a malformed or empty workout gets a reply saying what is wrong, and nothing is stored", arguments: [
        (["workout-type": "run", "workout-energy-cal": "lots"] as JSONObject, "field \"workout-energy-cal\" is wrong"),
        (["workout-type": "run", "workout-distance-meters": 12.5] as JSONObject, "field \"workout-distance-meters\" is wrong"),
        (["workout-type": "run", "workout-duration-seconds": -60] as JSONObject, "field \"workout-duration-seconds\" is wrong"),
        // Nothing measured, as the README's `{"type":"workout","distance":5000}` is to this bot.
        (["workout-type": "run", "distance": 5000] as JSONObject, "it has no workout-distance-meters, workout-duration-seconds or workout-energy-cal"),
    ])
    func malformedWorkout(_ fields: JSONObject, _ problem: String) async throws {
        let data = try ScratchFolder()
        let store = try WorkoutStore(url: data.path("workouts.sqlite"))
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(WorkoutBot.make(name: "workout", user: User(id: "workout-bot"), store: store), channels: ["messaging:general"]) { _ in
                let sent = try await ann.send(attachments: [AnyAttachmentPayload(json: AttachmentFixtures.custom("workout", fields))])
                let reply = try #require(try await ann.replies(to: sent, from: "workout-bot").first)
                #expect(reply.text == "Your workout could not be saved: \(problem)." || reply.text.hasPrefix("Your workout could not be saved: \(problem) ("), "\(reply.text)")
                #expect(reply.attachments.isEmpty)
            }
        }
        #expect(try store.workouts(of: "ann").isEmpty)
    }

    @Test("/workouts answers with a CSV export and an SVG chart, both uploaded files; with no workouts it says so")
    func export() async throws {
        let data = try ScratchFolder()
        let store = try WorkoutStore(url: data.path("workouts.sqlite"))
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(WorkoutBot.make(name: "workout", user: User(id: "workout-bot"), store: store), channels: ["messaging:general"]) { _ in
                let early = try await ann.send(text: "/workouts")
                let nothing = try #require(try await ann.replies(to: early, from: "workout-bot").first)
                #expect(nothing.text.hasPrefix("No workouts recorded"))

                let workout = try await ann.send(Self.run)
                _ = try await ann.replies(to: workout, from: "workout-bot")
                let command = try await ann.send(text: "/workouts")
                let reply = try #require(try await ann.replies(to: command, from: "workout-bot").first)
                #expect(reply.attachments.map(\.type) == [.file, .image])
                let csv = try String(contentsOf: try await ann.client.download(reply.attachments[0], to: data.path("export.csv")), encoding: .utf8)
                let lines = csv.split(separator: "\n")
                #expect(lines.first == "date,type,distance_meters,duration_seconds,energy_cal")
                #expect(lines.count == 2)
                #expect(lines.last?.contains(",run,5200,1860,410") == true, "\(csv)")
                let svg = try String(contentsOf: try await ann.client.download(reply.attachments[1], to: data.path("chart.svg")), encoding: .utf8)
                #expect(svg.hasPrefix("<svg") || svg.hasPrefix("<?xml"))
                #expect(svg.contains("</svg>"))
                #expect(reply.attachments[1].rawJSON["mime_type"]?.stringValue == "image/svg+xml")
            }
        }
    }

    @Test("workouts leave the totals with messages that leave at once: a user's deleted by a ban, a channel's by its truncation; others stay")
    func messagesLeavingAtOnce() async throws {
        let data = try ScratchFolder()
        let store = try WorkoutStore(url: data.path("workouts.sqlite"))
        let bot = WorkoutBot.make(name: "workout", user: User(id: "workout-bot"), store: store)
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let annInClub = try await TestUser.join(server, id: "ann", channel: "messaging:club")
            let bob = try await TestUser.join(server, id: "bob", channel: "messaging:general")
            let moderator = server.client(as: "mod")
            try await moderator.upsertUsers([User(id: "mod")])
            try await server.withBot(bot, channels: ["messaging:general", "messaging:club"]) { _ in
                for (user, workout) in [(ann, Self.run), (annInClub, Self.ride), (bob, Self.run)] {
                    let sent = try await user.send(workout)
                    _ = try await user.replies(to: sent, from: "workout-bot")
                }
                #expect(try store.workouts(of: "ann").map(\.cid) == ["messaging:general", "messaging:club"])

                try await moderator.banUser("ann", in: "messaging:general", deletingMessages: .soft, as: "mod")
                try await eventually("ann's workout in general is forgotten") { try store.workouts(of: "ann").count == 1 }
                #expect(try store.workouts(of: "ann").map(\.type) == ["ride"], "her workout in the club stays")
                #expect(try store.workouts(of: "bob").count == 1, "bob's workouts stay")

                try await moderator.truncateChannel("messaging:general")
                try await eventually("bob's workout in the truncated channel is forgotten") { try store.workouts(of: "bob").isEmpty }
                #expect(try store.workouts(of: "ann").map(\.type) == ["ride"])
            }
        }
    }

    @Test("a database written before workouts recorded their channel opens, keeps its workouts, and records channels from then on")
    func storeWithoutChannels() throws {
        let data = try ScratchFolder()
        let url = data.path("workouts.sqlite")
        try DatabaseQueue(path: url.path).write { db in
            try db.execute(
                sql: """
                    CREATE TABLE workouts (
                        message_id TEXT NOT NULL, position INTEGER NOT NULL, user_id TEXT NOT NULL, type TEXT NOT NULL,
                        distance_meters INTEGER NOT NULL, duration_seconds INTEGER NOT NULL, energy_cal INTEGER NOT NULL,
                        created_at REAL NOT NULL, PRIMARY KEY (message_id, position));
                    INSERT INTO workouts VALUES ('m-0', 0, 'ann', 'run', 1000, 300, 80, 0);
                    """)
        }
        let store = try WorkoutStore(url: url)
        try store.record(
            WorkoutStore.Record(
                messageId: "m-1", userId: "ann", type: "ride", distanceMeters: 9000, durationSeconds: 900, energyCal: 200, date: Date(),
                cid: "messaging:general"), position: 0)
        #expect(try store.workouts(of: "ann").map(\.cid) == [nil, "messaging:general"])
        #expect(try store.remove(in: "messaging:general", postedUpTo: Date()) == 1, "an old workout belongs to no channel it can be told apart by")
        #expect(try WorkoutStore(url: url).workouts(of: "ann").map(\.messageId) == ["m-0"], "opened again, nothing is added twice")
    }

    @Test("a workout delivered twice is stored once")
    func storeIsIdempotent() throws {
        let data = try ScratchFolder()
        let store = try WorkoutStore(url: data.path("workouts.sqlite"))
        let record = WorkoutStore.Record(
            messageId: "m-1", userId: "ann", type: "run", distanceMeters: 1000, durationSeconds: 300, energyCal: 80, date: Date())
        try store.record(record, position: 0)
        try store.record(record, position: 0)
        try store.record(record, position: 1)
        #expect(try store.workouts(of: "ann").count == 2)
    }

    @Test("its bots.yaml entry takes a database path; unknown options are located errors")
    func configuration() throws {
        let data = try ScratchFolder()
        let entry = try botEntry("name: workout\nkind: workout\nuser: workout-bot\nchannels: [messaging:general]\ndatabase: \(data.url.path)/mine.sqlite")
        let bot = try WorkoutBot.makeBot(entry, environment: data.environment)
        #expect(bot.user.id == "workout-bot")
        #expect(FileManager.default.fileExists(atPath: data.path("mine.sqlite").path))
        let bad = try botEntry("name: workout\nkind: workout\nchannels: [messaging:general]\ndatabse: x.sqlite")
        #expect {
            _ = try WorkoutBot.makeBot(bad, environment: data.environment)
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.code == .unknownKey && error.line == 6 && error.message.contains("databse")
        }
        let notABool = try botEntry("name: workout\nkind: workout\nchannels: [messaging:general]\nwelcome: sometimes")
        #expect {
            _ = try WorkoutBot.makeBot(notABool, environment: data.environment)
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.line == 6 && error.message.contains("true or false")
        }
    }

    @Test("with welcome, each member added to its channels is greeted by name with what the bot does, once, and so is a channel it is added to")
    func welcomesNewMembers() async throws {
        let data = try ScratchFolder()
        let entry = try botEntry("name: workout\nkind: workout\nuser: workout-bot\nchannels: [messaging:general]\nwelcome: true")
        let bot = try WorkoutBot.makeBot(entry, environment: data.environment)
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let admin = server.client(as: "admin")
            try await admin.upsertUsers([User(id: "bob", name: "Bob"), User(id: "cem")])
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                try await admin.addMembers(["bob", "cem"], to: "messaging:general")
                try await ann.send(text: "hello")
                try await ann.send(Self.run)
                try await eventually("the workout after the welcomes was answered") {
                    try await admin.queryChannel("messaging:general").messages.contains { $0.text.hasPrefix("This week") }
                }
                let posted = try await admin.queryChannel("messaging:general").messages.filter { $0.user?.id == "workout-bot" }.map(\.text)
                #expect(posted.prefix(2) == [WorkoutBot.welcomeText(for: "Bob"), WorkoutBot.welcomeText(for: "cem")])
                #expect(posted[0].hasPrefix("Welcome, Bob! Post a workout attachment"))
                #expect(posted.count == 3, "no welcome for the bot itself, nor for ann who was there before: \(posted)")

                try await admin.join("messaging:club", as: "bob")
                try await admin.addMembers(["workout-bot"], to: "messaging:club")
                try await eventually("the bot greets the channel it was added to") {
                    try await admin.queryChannel("messaging:club").messages.map(\.text) == [WorkoutBot.channelGreeting]
                }
                #expect(WorkoutBot.channelGreeting.hasPrefix("Hi, I'm the workout bot. Post a workout attachment"))
            }
        }
    }
}
