@testable import ChatBotKit
import ChatBotKitPostgres
import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Logging
import Testing

@Suite("LeaseKeeper: this node's share of a scaled-out bot's channels, against a real PostgreSQL")
struct LeaseKeeperTests {
    static let channels: [ChannelId] = (1...8).map { ChannelId(type: .messaging, id: "room-\($0)") }

    /// One node of the relay bot: its lease keeper, and the pipeline it routes events to, whose
    /// handler records "<channel> <text>".
    struct Node {
        let keeper: LeaseKeeper
        let pipeline: DeliveryPipeline
        let handled: Recorder<String>

        init(_ name: String, store: PostgresChannelLeaseStore, server: TestChatServer, watching channels: [ChannelId], lease: Duration = .seconds(30))
            async throws
        {
            let handled = Recorder<String>()
            let bot = Bot(name: "relay", user: User(id: "relay-bot"))
            bot.onMessage { context in handled.record("\(context.channel.cid.id) \(context.message.text)") }
            let client = server.client(as: bot.user.id)
            // Not connected: watching only lists the channels, which are those whose leases count.
            let connection = EventConnection(client: client, user: bot.user)
            for cid in channels { try await connection.watch(cid) }
            let keeper = LeaseKeeper(
                BotService.ScaleOut(store: store, node: name, leaseDuration: lease), bot: bot, connection: connection, maximumAge: .seconds(3600),
                metrics: BotMetrics(bot: bot.name, factory: client.metricsFactory), logger: Logger(label: "chatbotkit.test.\(name)"))
            self.keeper = keeper
            pipeline = DeliveryPipeline.forTest(bot, on: server, observers: [keeper])
            self.handled = handled
        }

        /// Takes `events` in as the bot's consumer does, after the nudge that a channel taken
        /// over sends, and waits until they are handled.
        func take(_ events: [Event] = []) async {
            await withDiscardingTaskGroup { workers in
                for event in [Event(type: .wakeUp)] + events { await keeper.take(event, into: pipeline, workers: &workers) }
                await pipeline.drain(&workers)
            }
        }
    }

    /// Runs `body` with a lease store on a PostgreSQL of its own, and a chat server.
    static func withStore(_ body: (PostgresChannelLeaseStore, TestChatServer) async throws -> Void) async throws {
        try await TestPostgres.with { postgres in
            let store = PostgresChannelLeaseStore(connection: try PostgresConnectionString(postgres.connectionString))
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { await store.run() }
                try await TestChatServer.withServer { server in try await body(store, server) }
                group.cancelAll()
            }
        }
    }

    @Test("a lone node takes every channel it watches at its first round, holds them once it took them in, and hands them over with how far it handled each")
    func loneNode() async throws {
        try await Self.withStore { store, server in
            let node = try await Node("node-a", store: store, server: server, watching: Self.channels)
            try await node.keeper.start(node.pipeline)
            #expect(node.keeper.leasedChannels.isEmpty, "taken, and waiting for the consumer to take them in")
            #expect(try await store.leases(bot: "relay").allSatisfy { $0.owner == "node-a" && $0.isHeld })
            await node.take()
            #expect(node.keeper.leasedChannels == Set(Self.channels))

            let handledAt = Date()
            await node.take([newMessage("m1", in: Self.channels[0], at: handledAt)])
            #expect(node.handled.all == ["room-1 m1"])
            await node.keeper.release()
            #expect(node.keeper.leasedChannels.isEmpty)
            #expect(try await store.leases(bot: "relay").allSatisfy { $0.owner == nil })
            let handOff = try #require(
                try await store.acquire(Self.channels[0], bot: "relay", node: "node-b", for: .seconds(30), expiredFor: .zero))
            #expect(abs(try #require(handOff.handledThrough).timeIntervalSince(handledAt)) < 0.001)
            #expect(handOff.recentlyHandled == ["m1"])
        }
    }

    @Test("two nodes share the channels out, and each event is handled by the node that holds its channel")
    func sharing() async throws {
        try await Self.withStore { store, server in
            let a = try await Node("node-a", store: store, server: server, watching: Self.channels)
            let b = try await Node("node-b", store: store, server: server, watching: Self.channels)
            try await a.keeper.start(a.pipeline)
            await a.take()
            try await b.keeper.start(b.pipeline)
            #expect(b.keeper.leasedChannels.isEmpty, "node-a holds them all")
            // node-a gives up what belongs with node-b now, and node-b takes it.
            try await a.keeper.balance(a.pipeline)
            try await b.keeper.balance(b.pipeline)
            await b.take()
            let (heldByA, heldByB) = (a.keeper.leasedChannels, b.keeper.leasedChannels)
            #expect(heldByA.isDisjoint(with: heldByB))
            #expect(heldByA.union(heldByB) == Set(Self.channels))
            #expect(!heldByA.isEmpty && !heldByB.isEmpty)

            let events = Self.channels.map { newMessage("hello-\($0.id)", in: $0) }
            await a.take(events)
            await b.take(events)
            #expect(Set(a.handled.all) == Set(heldByA.map { "\($0.id) hello-\($0.id)" }))
            #expect(Set(b.handled.all) == Set(heldByB.map { "\($0.id) hello-\($0.id)" }))
        }
    }

    @Test("a channel taken over is synced from where its last holder left it: what that one handled is not handled again, the rest is, before the live events")
    func takeOver() async throws {
        try await Self.withStore { store, server in
            let cid = Self.channels[0]
            let ann = try await TestUser.join(server, id: "ann", channel: cid)
            _ = try await TestUser.join(server, id: "relay-bot", channel: cid)
            var sent: [Message] = []
            for text in ["one", "two", "three"] { sent.append(try await ann.send(text: text)) }
            let first = try #require(sent.first)

            let a = try await Node("node-a", store: store, server: server, watching: [cid])
            try await a.keeper.start(a.pipeline)
            await a.take([Event(type: .messageNew, createdAt: first.createdAt, cid: cid, message: first)])
            await a.keeper.release()
            #expect(a.handled.all == ["room-1 one"])

            let b = try await Node("node-b", store: store, server: server, watching: [cid])
            try await b.keeper.start(b.pipeline)
            await b.take([newMessage("four", in: cid)])
            #expect(b.handled.all == ["room-1 two", "room-1 three", "room-1 four"])
        }
    }

    @Test("a node name another running process keeps announcing cannot start")
    func nameTaken() async throws {
        try await Self.withStore { store, server in
            // Leases of 3 s: the running node's announcement outlives any stall of its rounds while
            // every test runs at once.
            let running = try await Node("node-a", store: store, server: server, watching: Self.channels, lease: .seconds(3))
            try await running.keeper.start(running.pipeline)
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { await running.keeper.run(running.pipeline) }
                let second = try await Node("node-a", store: store, server: server, watching: Self.channels, lease: .seconds(3))
                let error = await #expect(throws: BotError.self) { try await second.keeper.start(second.pipeline) }
                #expect(error?.code == .startFailed)
                #expect(error?.message.contains("node name node-a is taken") == true, "\(String(describing: error))")
                group.cancelAll()
            }
        }
    }
}
