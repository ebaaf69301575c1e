import ChatBotKit
import ChatBotKitPostgres
import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("Scale-out: one bot on several nodes, each channel handled by one node, handed over without loss or repeats")
struct ScaleOutTests {
    static let channels: [ChannelId] = (1...8).map { ChannelId(type: .messaging, id: "room-\($0)") }

    /// A bot that records "<node> <channel> <text>" for every message it handles.
    static func relay(node: String, _ recorder: Recorder<HandledMessage>) -> Bot {
        let bot = Bot(name: "relay", user: User(id: "relay-bot"))
        bot.onMessage { context in recorder.record(node: node, channel: context.channel.cid, text: context.message.text) }
        return bot
    }

    static func configuration(_ store: PostgresChannelLeaseStore, node: String, lease: Duration = .milliseconds(900)) -> BotService.Configuration {
        var configuration = TestChatServer.testBotConfiguration
        configuration.scaleOut = BotService.ScaleOut(store: store, node: node, leaseDuration: lease)
        return configuration
    }

    /// Runs `body` with a lease store, a chat server, a user in every channel, and a record of
    /// what the nodes handle.
    static func withCluster(
        _ body: (PostgresChannelLeaseStore, TestChatServer, TestUser, Recorder<HandledMessage>) async throws -> Void
    ) async throws {
        try await withStore { store in
            try await TestChatServer.withServer { server in
                try await body(store, server, try await member(server), Recorder<HandledMessage>())
            }
        }
    }

    /// A user in every channel.
    static func member(_ server: TestChatServer) async throws -> TestUser {
        let ann = try await TestUser.join(server, id: "ann", channel: channels[0])
        for cid in channels.dropFirst() { try await ann.client.join(cid, as: "ann") }
        return ann
    }

    /// Starts one node of the relay bot.
    static func start(
        _ node: String, _ server: TestChatServer, _ store: PostgresChannelLeaseStore, _ handled: Recorder<HandledMessage>,
        lease: Duration = .milliseconds(900)
    ) async throws -> RunningBot {
        try await server.startBot(relay(node: node, handled), channels: channels, configuration: configuration(store, node: node, lease: lease))
    }

    @Test("two nodes share the channels out, and every message is handled once, by the node that holds its channel")
    func sharesChannels() async throws {
        try await Self.withCluster { store, server, ann, handled in
            let nodeA = try await Self.start("node-a", server, store, handled)
            let nodeB = try await Self.start("node-b", server, store, handled)
            try await eventually("the channels are shared out") {
                let (a, b) = (nodeA.service.leasedChannels, nodeB.service.leasedChannels)
                return a.isDisjoint(with: b) && a.union(b) == Set(Self.channels) && !a.isEmpty && !b.isEmpty
            }
            let owners = Dictionary(uniqueKeysWithValues: Self.channels.map { cid in
                (cid, nodeA.service.leasedChannels.contains(cid) ? "node-a" : "node-b")
            })
            for cid in Self.channels { try await ann.client.channel(cid).sendMessage(text: "hello \(cid.id)") }
            try await handled.wait { $0.count == Self.channels.count }
            try await Task.sleep(for: .milliseconds(300))
            #expect(handled.all.count == Self.channels.count)
            for entry in handled.all { #expect(entry.node == owners[entry.channel], "\(entry)") }
            try await nodeB.stop()
            try await nodeA.stop()
        }
    }

    @Test("a node that stops hands its channels over, and one that joins takes its share: messages stay in order, none lost or repeated")
    func handsOver() async throws {
        try await Self.withCluster { store, server, ann, handled in
            let nodeA = try await Self.start("node-a", server, store, handled)
            let nodeB = try await Self.start("node-b", server, store, handled)
            try await eventually("node-b takes its share") { !nodeB.service.leasedChannels.isEmpty }

            // Messages keep coming while node-a stops and node-c joins.
            let sender = Task {
                for round in 1...24 {
                    for cid in Self.channels { try await ann.client.channel(cid).sendMessage(text: "\(round)") }
                    try await Task.sleep(for: .milliseconds(60))
                }
            }
            try await Task.sleep(for: .milliseconds(400))
            try await nodeA.stop()
            try await eventually("node-b holds every channel") { nodeB.service.leasedChannels == Set(Self.channels) }
            let nodeC = try await Self.start("node-c", server, store, handled)
            try await sender.value
            try await handled.wait(timeout: .seconds(20)) { $0.count >= 24 * Self.channels.count }
            try await Task.sleep(for: .milliseconds(500))

            for cid in Self.channels {
                let texts = handled.all.filter { $0.channel == cid }.map(\.text)
                #expect(texts == (1...24).map(String.init), "\(cid): \(texts)")
            }
            let nodes = Set(handled.all.map(\.node))
            #expect(nodes == ["node-a", "node-b", "node-c"])
            #expect(!nodeC.service.leasedChannels.isEmpty)
            try await nodeC.stop()
            try await nodeB.stop()
        }
    }

    @Test("a second process with a running node's name does not start, and says why; the first goes on")
    func takenNodeName() async throws {
        try await Self.withCluster { store, server, ann, handled in
            // Leases of 6 s: the first node's announcement outlives any stall of its rounds while
            // every test runs at once (3 s did not, beside the 300-channel tests, on two cores).
            let first = try await Self.start("web-1", server, store, handled, lease: .seconds(6))
            let started = ContinuousClock.now
            let error = await #expect(throws: BotError.self) { _ = try await Self.start("web-1", server, store, handled, lease: .seconds(6)) }
            #expect(error?.code == .startFailed)
            #expect(error?.message.contains("node name web-1 is taken by another running process of bot relay") == true, "\(error?.message ?? "")")
            // It waited out a lease (a crashed node's own announcement would have run out by then).
            #expect(ContinuousClock.now - started >= .seconds(6))
            try await ann.client.channel(Self.channels[0]).sendMessage(text: "still here")
            try await handled.wait { $0.map(\.text) == ["still here"] }
            #expect(first.service.leasedChannels == Set(Self.channels))
            try await first.stop()
        }
    }

    @Test("a node whose lease store cannot be reached does not start, and says why")
    func unreachableStore() async throws {
        let store = PostgresChannelLeaseStore(
            connection: try PostgresConnectionString("postgres:///postgres?host=/tmp/chatbotkit-no-such-server&user=postgres"), timeout: .seconds(1))
        try await withRunning(store) {
            try await TestChatServer.withServer { server in
                let error = await #expect(throws: BotError.self) {
                    _ = try await server.startBot(
                        Self.relay(node: "node-a", Recorder<HandledMessage>()), channels: Self.channels,
                        configuration: Self.configuration(store, node: "node-a"))
                }
                #expect(error?.code == .startFailed)
                #expect(error?.message.contains("cannot reach its lease store (node node-a)") == true, "\(error?.message ?? "")")
            }
        }
    }
}

/// A message one node of the relay bot handled.
struct HandledMessage: Sendable, CustomStringConvertible {
    let node: String
    let channel: ChannelId
    let text: String
    var description: String { "\(node) \(channel) \(text)" }
}

extension Recorder where Value == HandledMessage {
    /// Records that `node` handled `text` in `channel`.
    func record(node: String, channel: ChannelId, text: String) {
        record(HandledMessage(node: node, channel: channel, text: text))
    }
}
