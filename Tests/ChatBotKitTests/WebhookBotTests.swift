import ChatBotKitWebhooks
import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Foundation
import Testing

@Suite("Webhooks: bots that take their events from the app's webhook instead of a WebSocket", .timeLimit(.minutes(2)))
struct WebhookBotTests {
    /// A bot that records the text of each new message, with its channel.
    static func recordingBot(_ recorder: Recorder<String>, name: String = "listener") -> Bot {
        let bot = Bot(name: name)
        bot.onMessage { context in recorder.record("\(context.channel.cid.id): \(context.message.text)") }
        return bot
    }

    static func webhookConfiguration(_ intake: WebhookIntake) -> BotService.Configuration {
        var configuration = TestChatServer.testBotConfiguration
        configuration.events = .webhook(intake)
        return configuration
    }

    @Test("a bot on the webhook answers in its channels, follows a channel it is added to, ignores others, and never connects", arguments: [false, true])
    func botOnTheWebhook(gzip: Bool) async throws {
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let bob = try await TestUser.join(server, id: "bob", channel: "messaging:elsewhere")
            let recorder = Recorder<String>()
            try await server.withWebhook(gzip: gzip) { intake in
                try await server.withBot(Self.recordingBot(recorder), channels: ["messaging:general"], configuration: Self.webhookConfiguration(intake)) { running in
                    try await ann.send(text: "one")
                    try await bob.send(text: "not mine")
                    try await recorder.wait { $0.contains("general: one") }
                    #expect(await server.server.isOnline("listener") == false)

                    try await bob.client.addMembers(["listener"], to: "messaging:elsewhere")
                    try await bob.send(text: "now mine")
                    try await recorder.wait { $0.contains("elsewhere: now mine") }
                    // The recorder hears the message from inside the handler, before it returns.
                    try await eventually("every handler has returned") { running.service.runningHandlers == 0 }
                }
            }
            #expect(recorder.all == ["general: one", "elsewhere: now mine"])
            let deliveries = server.server.webhookDeliveries
            #expect(deliveries.delivered >= 5)
            #expect(deliveries.failed == 0)
        }
    }

    @Test("a bot on the webhook runs its schedules in its channels, those it was added to too")
    func schedulesOnTheWebhook() async throws {
        try await TestChatServer.withServer { server in
            _ = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await TestUser.join(server, id: "bob", channel: "messaging:elsewhere").client.addMembers(["listener"], to: "messaging:elsewhere")
            let recorder = Recorder<String>()
            let bot = Self.recordingBot(recorder)
            bot.onSchedule(.every(.seconds(1)), name: "tick") { run in recorder.record("tick \(run.channel.cid.id)") }
            try await server.withWebhook { intake in
                try await server.withBot(bot, channels: ["messaging:general"], configuration: Self.webhookConfiguration(intake)) { _ in
                    try await recorder.wait { $0.contains("tick general") && $0.contains("tick elsewhere") }
                }
            }
        }
    }

    @Test("a bot on the webhook takes its own reminders as they come due, and not the reminders of the people in its channels")
    func remindersOnTheWebhook() async throws {
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let recorder = Recorder<String>()
            let bot = Self.recordingBot(recorder)
            bot.onReminderDue { reminder, context in recorder.record("due for \(reminder.userId): \(context.message.text)") }
            try await server.withWebhook { intake in
                try await server.withBot(bot, channels: ["messaging:general"], configuration: Self.webhookConfiguration(intake)) { _ in
                    let sent = try await ann.send(text: "stretch")
                    // ann's comes due first: the webhook brings it too, but it is hers.
                    try await ann.client.createReminder(for: sent.id, at: Date().addingTimeInterval(0.2))
                    try await server.client(as: "admin").createReminder(for: sent.id, at: Date().addingTimeInterval(0.6), as: "listener")
                    try await recorder.wait { $0.contains("due for listener: stretch") }
                    try await Task.sleep(for: .milliseconds(300))
                    #expect(recorder.all.filter { $0.hasPrefix("due") } == ["due for listener: stretch"])
                }
            }
        }
    }

    @Test("the dev server gives up on a webhook that answers 503 after its attempts, and on one that refuses (401) at once")
    func devServerRetries() async throws {
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withWebhook(events: ["message.new"]) { intake in
                // No bot subscribed: every attempt is answered 503.
                try await ann.send(text: "nobody listens")
                try await eventually("the delivery failed") { server.server.webhookDeliveries.failed == 1 }
                #expect(server.server.webhookDeliveries.delivered == 0)
            }
            let wrongSecret = WebhookIntake(apiKey: server.apiKey, apiSecret: "not-the-secret")
            let webhook = WebhookServer(intake: wrongSecret, port: 0)
            try await withRunningServices([webhook]) {
                let admin = server.client(as: "admin")
                try await admin.updateAppSettings(["webhook_url": .string(try await webhook.url().absoluteString)])
                let (_, events) = wrongSecret.subscribe(name: "never")
                try await ann.send(text: "forged, it seems")
                try await eventually("the refused delivery failed") { server.server.webhookDeliveries.failed == 2 }
                _ = events
                try await admin.updateAppSettings(["webhook_url": ""])
            }
        }
    }

    @Test("a bad webhook setting is refused with what it takes", arguments: [
        ("webhook_url", RawJSON.string("ftp://example.com/hook"), "must be an http or https URL"),
        ("webhook_url", RawJSON.number(JSONNumber(3)), "must be a string"),
        ("webhook_events", RawJSON.string("message.new"), "must be an array of event types"),
        ("webhook_compression_algorithm", RawJSON.string("br"), "must be \"gzip\" or \"\""),
    ])
    func badSettings(key: String, value: RawJSON, expected: String) async throws {
        try await TestChatServer.withServer { server in
            let admin = server.client(as: "admin")
            let error = await #expect(throws: ChatClientError.self) { try await admin.updateAppSettings([key: value]) }
            #expect(error?.httpStatus == 400)
            #expect(error?.message.contains(expected) == true, "\(String(describing: error?.message))")
        }
    }

    @Test(
        "started again with a checkpoint, a webhook bot handles what was posted while it was stopped (through /sync), and nothing twice; also when it saw nothing before",
        arguments: [false, true])
    func catchesUpAfterRestart(quiet: Bool) async throws {
        let scratch = try ScratchFolder("webhook")
        let folder = scratch.path("webhook")
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withWebhook { intake in
                var configuration = Self.webhookConfiguration(intake)
                configuration.catchUp = BotService.CatchUp(checkpointFile: folder.appendingPathComponent("listener.json"), saveInterval: .milliseconds(50))
                let first = Recorder<String>()
                try await server.withBot(Self.recordingBot(first), channels: ["messaging:general"], configuration: configuration) { _ in
                    if quiet {
                        try await eventually("the checkpoint is saved") { FileManager.default.fileExists(atPath: folder.appendingPathComponent("listener.json").path) }
                    } else {
                        try await ann.send(text: "a")
                        try await first.wait { $0 == ["general: a"] }
                    }
                }
                // Posted to the webhook while no bot takes events: it answers 503 and the server gives up.
                try await ann.send(text: "b")
                try await eventually("the delivery failed") { server.server.webhookDeliveries.failed >= 1 }
                let second = Recorder<String>()
                try await server.withBot(Self.recordingBot(second), channels: ["messaging:general"], configuration: configuration) { _ in
                    try await second.wait { $0 == ["general: b"] }
                    try await ann.send(text: "c")
                    try await second.wait { $0 == ["general: b", "general: c"] }
                }
            }
        }
    }
}
