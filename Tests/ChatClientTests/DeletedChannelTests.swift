@testable import ChatClient
import ChatBotKitTesting
import ChatDevServer
import ChatModels
import Foundation
import Testing

@Suite("An event connection does not bring deleted channels back when it reconnects")
struct DeletedChannelTests {
    /// An event connection of `bot` (server credentials) watching `messaging:doomed` and
    /// `messaging:kept`, and a client for `admin`.
    func watchingTwoChannels(_ body: (TestChatServer, ChatClient, EventConnection, EventCollector) async throws -> Void) async throws {
        try await TestChatServer.withServer { server in
            try await withEventConnection(server.client(as: "bot"), user: "bot") { connection, collector in
                try await connection.watch("messaging:doomed")
                try await connection.watch("messaging:kept")
                try await body(server, server.client(as: "admin"), connection, collector)
            }
        }
    }

    @Test("a channel deleted while connected stops being watched: a reconnect does not create it again")
    func deletedWhileConnected() async throws {
        try await watchingTwoChannels { server, admin, connection, collector in
            try await admin.deleteChannel("messaging:doomed")
            try await collector.wait { $0.contains { $0.type == .channelDeleted } }
            #expect(connection.watchedChannels == ["messaging:kept"])

            await server.server.dropConnections(ofUser: "bot")
            try await admin.channel("messaging:kept").sendMessage(text: "after the drop", id: "kept-1")
            try await collector.wait { $0.contains { $0.message?.id == "kept-1" } }
            #expect(connection.connectionCount >= 2)
            #expect(try await admin.existingChannels(["messaging:doomed", "messaging:kept"]) == ["messaging:kept"])
        }
    }

    @Test("channels deleted in bulk each reach the connection as channel.deleted; the task says per channel ok or why not")
    func deletedInBulk() async throws {
        try await watchingTwoChannels { _, admin, connection, collector in
            let task = try await admin.task(try await admin.deleteChannels(["messaging:doomed", "messaging:nowhere"], hardDelete: true))
            #expect(task.isFinished && task.result["messaging:doomed"] == "ok")
            #expect(task.result["messaging:nowhere"]?.stringValue?.contains("channel messaging:nowhere does not exist") == true)
            try await collector.wait { $0.contains { $0.type == .channelDeleted && $0.cid == "messaging:doomed" } }
            #expect(connection.watchedChannels == ["messaging:kept"])
            #expect(try await admin.existingChannels(["messaging:doomed", "messaging:kept"]) == ["messaging:kept"])
        }
    }

    @Test("a channel deleted while disconnected: /sync brings its deletion back once, and it is not created again")
    func deletedWhileDisconnected() async throws {
        try await watchingTwoChannels { server, admin, connection, collector in
            await server.server.silence("bot")
            await server.server.dropConnections(ofUser: "bot")
            let deleted = try await admin.deleteChannel("messaging:doomed", hardDelete: true)
            await server.server.silence("bot", false)
            try await collector.wait { $0.contains { $0.type == .channelDeleted } }
            try await admin.channel("messaging:kept").sendMessage(text: "after the gap", id: "kept-2")
            try await collector.wait { $0.contains { $0.message?.id == "kept-2" } }

            let deletions = collector.events.filter { $0.type == .channelDeleted }
            #expect(deletions.count == 1)
            // The server's own event, with the moment of the deletion.
            #expect(deletions.first?.cid == "messaging:doomed")
            #expect(deletions.first?.channel?.deletedAt == deleted.deletedAt)
            #expect(connection.watchedChannels == ["messaging:kept"])
            #expect(try await admin.existingChannels(["messaging:doomed"]).isEmpty)
        }
    }

    @Test("with a user token a vanished channel is forgotten without a made-up deletion: the user may only have been removed")
    func vanishedForUserToken() async throws {
        try await TestChatServer.withServer { server in
            let admin = server.client(as: "admin")
            try await admin.upsertUsers([User(id: "ann")])
            try await admin.queryChannel("messaging:doomed", members: ["ann"])
            try await admin.queryChannel("messaging:kept", members: ["ann"])
            let ann = server.userClient("ann")
            try await withEventConnection(ann, user: "ann") { connection, collector in
                try await connection.watch("messaging:doomed")
                try await connection.watch("messaging:kept")
                await server.server.silence("ann")
                await server.server.dropConnections(ofUser: "ann")
                try await admin.deleteChannel("messaging:doomed")
                await server.server.silence("ann", false)
                try await admin.channel("messaging:kept").sendMessage(text: "after the gap", id: "kept-3")
                try await collector.wait { $0.contains { $0.message?.id == "kept-3" } }
                #expect(!collector.events.contains { $0.type == .channelDeleted })
                #expect(connection.watchedChannels == ["messaging:kept"])
                #expect(try await admin.existingChannels(["messaging:doomed"]).isEmpty)
            }
        }
    }

    @Test("a deletion the server's /sync leaves out is announced by the connection itself, server credentials only")
    func madeUpDeletion() async throws {
        try await TestChatServer.withServer { server in
            let before = Date()
            let serverSide = EventConnection(client: server.client(as: "bot"), user: User(id: "bot"))
            let deletion = try #require(serverSide.deletion(of: "messaging:gone"))
            #expect(deletion.type == .channelDeleted && deletion.cid == "messaging:gone" && deletion.user == nil)
            #expect(try #require(deletion.channel?.deletedAt) >= before)
            #expect(deletion.channel?.deletedAt == deletion.createdAt)

            let userToken = server.userClient("ann")
            #expect(EventConnection(client: userToken, user: User(id: "ann")).deletion(of: "messaging:gone") == nil)
        }
    }
}
