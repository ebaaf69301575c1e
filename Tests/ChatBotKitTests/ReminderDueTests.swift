import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Foundation
import Testing

/// Records the reminders that pass, as a user's middleware would see them.
private struct ReminderLog: BotMiddleware {
    let recorder: Recorder<String>
    func handle(_ message: Message, context: BotContext, next: @Sendable (Message, BotContext) async throws -> Void) async throws {
        if case .reminderDue = context.trigger { recorder.record("middleware saw the reminder of \(message.text)") }
        try await next(message, context)
    }
}

@Suite("Reminders: the bot's own reminders of messages reach onReminderDue when they come due")
struct ReminderDueTests {
    @Test("a reminder the bot set runs its handler when due, through middleware, again when moved; other users' reminders never do")
    func dueReminders() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "coach")
            bot.use(ReminderLog(recorder: recorder))
            bot.onMessage { context in
                guard context.message.text.hasPrefix("remind") else { return }
                let reminder = try await context.remind(at: Date().addingTimeInterval(0.4))
                recorder.record("set for \(reminder.userId)")
            }
            bot.onReminderDue { reminder, context in
                try await context.reply(text: "How did it go?", inThread: true)
                // After the reply, so that the test finds it once this is recorded.
                recorder.record("due: \(context.message.text) (\(reminder.userId))")
            }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let asked = try await ann.send(text: "remind me to stretch")
                try await recorder.wait { $0.contains("due: remind me to stretch (coach)") }
                let followUp = try await ann.client.replies(to: asked.id)
                #expect(followUp.map(\.text) == ["How did it go?"] && followUp.first?.user?.id == "coach", "answered in the message's thread")

                // ann's own reminder of the same message is hers alone, also where the bot is
                // handed it, as by the app's webhook, which brings every user's.
                try await ann.client.createReminder(for: asked.id, at: Date().addingTimeInterval(0.2))
                let annsDue: RawJSON = [
                    "type": "notification.reminder_due", "cid": "messaging:general", "message_id": .string(asked.id), "user_id": "ann",
                    "created_at": .string(RFC3339.string(from: Date())),
                    "reminder": [
                        "channel_cid": "messaging:general", "message_id": .string(asked.id), "user_id": "ann",
                        "remind_at": .string(RFC3339.string(from: Date())), "message": asked.json,
                    ],
                ]
                #expect(await server.server.sendRawFrame(JSONWriter.string(annsDue), toUser: "coach") == 1)
                // Moved, the bot's reminder is due again; setting it again through the context moves it too.
                try await server.client(as: "admin").updateReminder(for: asked.id, at: Date().addingTimeInterval(0.3), as: "coach")
                try await recorder.wait { $0.filter { $0.hasPrefix("due:") }.count == 2 }
                try await Task.sleep(for: .milliseconds(500))
                #expect(
                    recorder.all == [
                        "set for coach", "middleware saw the reminder of remind me to stretch", "due: remind me to stretch (coach)",
                        "middleware saw the reminder of remind me to stretch", "due: remind me to stretch (coach)",
                    ])
                #expect(try await ann.client.replies(to: asked.id).count == 2)
            }
        }
    }

    @Test("a reminder that came due while the bot was stopped runs when it starts again (with a checkpoint), once, also after a second restart")
    func dueWhileStopped() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "coach")
            bot.onMessage { context in
                // Late enough that the bot has stopped when it comes due.
                try await context.remind(at: Date().addingTimeInterval(1.5))
                recorder.record("set")
            }
            bot.onReminderDue { _, context in recorder.record("due: \(context.message.text)") }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let scratch = try ScratchFolder("reminders")
            let data = scratch.path("reminders")
            var configuration = TestChatServer.testBotConfiguration
            configuration.catchUp = BotService.CatchUp(checkpointFile: data.appendingPathComponent("coach.json"), saveInterval: .milliseconds(50))
            try await server.withBot(bot, channels: ["messaging:general"], configuration: configuration) { _ in
                try await ann.send(text: "check in on me")
                try await recorder.wait { $0 == ["set"] }
            }
            try await Task.sleep(for: .milliseconds(2000))
            for _ in 0..<2 {
                try await server.withBot(bot, channels: ["messaging:general"], configuration: configuration) { _ in
                    try await recorder.wait { $0.contains("due: check in on me") }
                    try await Task.sleep(for: .milliseconds(300))
                }
            }
            #expect(recorder.all == ["set", "due: check in on me"])
        }
    }

    @Test("setting a reminder of a deleted message is refused with the service's reason")
    func refusedReminder() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "coach")
            bot.onMessage { context in
                let gone = try await context.client.deleteMessage(context.message.id)
                try await context.remind(at: Date().addingTimeInterval(60), of: gone)
            }
            bot.onError { error, _ in recorder.record(error.message) }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let sent = try await ann.send(text: "vanishing")
                try await recorder.wait { !$0.isEmpty }
                #expect(recorder.all.first?.contains("message \(sent.id) is deleted; it cannot have a reminder") == true, "\(recorder.all)")
            }
        }
    }
}
