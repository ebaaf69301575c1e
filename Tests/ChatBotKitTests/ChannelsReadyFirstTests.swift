import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatLocking
import ChatModels
import Foundation
import Testing

@Suite("A bot in many channels handles the channels watched first while it still watches the others")
struct ChannelsReadyFirstTests {
    @Test("a message in the first batch of 240 is answered while the bot's last channel still waits out a 429 at creation")
    func firstBatchAnsweredBeforeTheLast() async throws {
        try await TestChatServer.withServer { server in
            let first = ManyChannelsTests.channels(240)
            let ann = try await TestUser.join(server, id: "ann", channel: first[0])
            try await server.client(as: "keeper").upsertUsers([User(id: "keeper")])
            try await ann.client.addMembers(["keeper"], to: first[0])
            try await ManyChannelsTests.create(Array(first[1...]), members: ["ann", "keeper"], by: ann)
            // Not created yet: the bot creates it in its second batch, and the service says to
            // come back in 4 s; the client waits that out before the bot is ready.
            let last: ChannelId = "messaging:zz-last"
            server.server.injectFault(InjectedFault(pathContains: "/channels/messaging/zz-last/query", status: 429, resetAfterSeconds: 4))
            let recorder = Recorder<String>()
            let isReady = Locked(false)
            let starting = Task {
                let running = try await server.startBot(ManyChannelsTests.answeringBot(recorder), channels: first + [last])
                isReady.withLock { $0 = true }
                return running
            }
            do {
                try await eventually("the first batch is watched") { await server.server.watchers(of: first[0]).contains("keeper") }
                let sent = try await ann.send(text: "early")
                let replies = try await ann.replies(to: sent, from: "keeper")
                #expect(replies.map(\.text) == ["seen early"])
                #expect(!isReady.withLock { $0 }, "answered before the last channel was watched")
                let running = try await starting.value
                #expect(running.service.connection.watchedChannels.contains(last))
                #expect(await server.server.watchers(of: last).contains("keeper"))
                try await running.stop()
            } catch {
                try? await starting.value.stop()
                throw error
            }
        }
    }
}
