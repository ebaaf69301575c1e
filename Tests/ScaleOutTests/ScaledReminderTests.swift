import ChatBotKit
import ChatBotKitPostgres
import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("Scale-out: the bot's reminders run on the node that holds their channel, also those due while no node held it")
struct ScaledReminderTests {
    /// A bot that, for a message "<name> <seconds>", sets its reminder of it that many seconds
    /// later, and records "set <text>" and, when due, "due <text>".
    static func follower(node: String, _ handled: Recorder<HandledMessage>) -> Bot {
        let bot = Bot(name: "relay", user: User(id: "relay-bot"))
        bot.onMessage { context in
            let seconds = Double(context.message.text.split(separator: " ").last ?? "") ?? 1
            try await context.remind(at: Date().addingTimeInterval(seconds))
            handled.record(node: node, channel: context.channel.cid, text: "set \(context.message.text)")
        }
        bot.onReminderDue { _, context in
            handled.record(node: node, channel: context.channel.cid, text: "due \(context.message.text)")
        }
        return bot
    }

    @Test("a reminder due after its channel's node stopped runs on the node that takes the channel, once; one the first node ran is not run again")
    func dueWhileUnheld() async throws {
        try await ScaleOutTests.withCluster { store, server, ann, handled in
            let cid = ScaleOutTests.channels[0]
            let nodeA = try await server.startBot(
                Self.follower(node: "node-a", handled), channels: ScaleOutTests.channels,
                configuration: ScaleOutTests.configuration(store, node: "node-a"))
            try await eventually("node-a holds every channel") { nodeA.service.leasedChannels == Set(ScaleOutTests.channels) }
            try await ann.client.channel(cid).sendMessage(text: "early 0.5")
            try await ann.client.channel(cid).sendMessage(text: "late 2.5")
            try await handled.wait { entries in entries.contains { $0.text == "due early 0.5" } && entries.contains { $0.text == "set late 2.5" } }
            let lateDue = Date().addingTimeInterval(2.5)
            // node-a hands its channels over; the late reminder comes due while no node runs.
            try await nodeA.stop()
            try await Task.sleep(for: .seconds(max(0, lateDue.timeIntervalSinceNow) + 0.5))

            let nodeB = try await server.startBot(
                Self.follower(node: "node-b", handled), channels: ScaleOutTests.channels,
                configuration: ScaleOutTests.configuration(store, node: "node-b"))
            try await handled.wait { $0.contains { $0.text == "due late 2.5" } }
            try await Task.sleep(for: .milliseconds(500))
            let due = handled.all.filter { $0.text.hasPrefix("due ") }.map(\.description)
            #expect(due == ["node-a \(cid) due early 0.5", "node-b \(cid) due late 2.5"])
            try await nodeB.stop()
        }
    }
}
