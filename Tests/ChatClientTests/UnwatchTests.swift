@testable import ChatClient
import ChatBotKitTesting
import ChatDevServer
import ChatModels
import Foundation
import Testing

@Suite("EventConnection.unwatch and membership")
struct UnwatchTests {
    @Test("unwatch stops a channel's events on the server at once and after reconnects; a member still gets its new messages as notifications")
    func unwatchStopsChannelEvents() async throws {
        try await TestChatServer.withServer { server in
            let admin = server.client(as: "admin")
            try await withEventConnection(server.client(as: "bot"), user: "bot") { connection, collector in
                try await connection.watch("messaging:general")
                try await admin.addMembers(["bot"], to: "messaging:general")
                try await admin.channel("messaging:general").sendMessage(text: "watched", id: "w-1")
                try await collector.wait { $0.contains { $0.type == .messageNew && $0.message?.id == "w-1" } }

                try await connection.unwatch("messaging:general")
                #expect(connection.watchedChannels.isEmpty)
                #expect(await !server.server.watchers(of: "messaging:general").contains("bot"))
                try await admin.channel("messaging:general").sendMessage(text: "as a member", id: "w-2")
                try await collector.wait { $0.contains { $0.message?.id == "w-2" } }
                #expect(collector.events.first { $0.message?.id == "w-2" }?.type == .notificationMessageNew)

                await server.server.dropConnections(ofUser: "bot")
                // Only watched channels are synced after a reconnect, so the message is sent once connected again.
                try await eventually("the connection is back") { connection.connectionCount >= 2 && connection.connectionId != nil }
                try await admin.channel("messaging:general").sendMessage(text: "after the reconnect", id: "w-3")
                try await collector.wait { $0.contains { $0.message?.id == "w-3" } }
                #expect(await !server.server.watchers(of: "messaging:general").contains("bot"))
                #expect(collector.events.filter { $0.message?.id == "w-3" }.map(\.type) == [.notificationMessageNew])
            }
        }
    }

    @Test("a removal of the connection's own user stops the channel being watched; another member's removal does not")
    func ownRemovalForgetsTheChannel() async throws {
        try await TestChatServer.withServer { server in
            let admin = server.client(as: "admin")
            try await admin.join("messaging:general", as: "ann")
            try await withEventConnection(server.client(as: "bot"), user: "bot") { connection, collector in
                try await admin.addMembers(["bot"], to: "messaging:general")
                try await connection.watch("messaging:general")
                try await admin.removeMembers(["ann"], from: "messaging:general")
                try await collector.wait { $0.contains { $0.isRemoval(of: "ann") } }
                #expect(connection.watchedChannels == ["messaging:general"])

                try await admin.removeMembers(["bot"], from: "messaging:general")
                try await collector.wait { $0.contains { $0.isRemoval(of: "bot") } }
                #expect(connection.watchedChannels.isEmpty)
                #expect(collector.events.last { $0.isRemoval(of: "bot") }?.type == .memberRemoved)
            }
        }
    }
}
