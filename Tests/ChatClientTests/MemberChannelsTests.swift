@testable import ChatClient
import ChatBotKitTesting
import ChatDevServer
import ChatModels
import Foundation
import Testing

@Suite("EventConnection with watchesMemberChannels follows the user's membership")
struct MemberChannelsTests {
    let following = EventConnection.Configuration(
        heartbeatInterval: .seconds(1), serverHealthCheckInterval: .seconds(1), watchesMemberChannels: true)

    @Test("the channels joined before connecting are watched; one added to while connected is watched, one removed from is not")
    func followsWhileConnected() async throws {
        try await TestChatServer.withServer { server in
            let admin = server.client(as: "admin")
            try await admin.join("messaging:before", as: "bot")
            try await admin.join("messaging:elsewhere", as: "ann")
            try await admin.join("messaging:later", as: "ann")
            try await withEventConnection(server.client(as: "bot"), user: "bot", configuration: following) { connection, collector in
                #expect(connection.watchedChannels == ["messaging:before"])
                #expect(await server.server.watchers(of: "messaging:before") == ["bot"])
                #expect(await server.server.watchers(of: "messaging:elsewhere").isEmpty)

                try await admin.addMembers(["bot"], to: "messaging:later")
                try await eventually("the connection watches messaging:later") {
                    await server.server.watchers(of: "messaging:later").contains("bot")
                }
                #expect(connection.watchedChannels == ["messaging:before", "messaging:later"])
                // Edits reach watchers only.
                try await admin.channel("messaging:later").sendMessage(text: "v1", id: "later-1")
                try await admin.updateMessage("later-1", text: "v2")
                try await collector.wait { $0.contains { $0.type == .messageUpdated && $0.message?.text == "v2" } }

                try await admin.removeMembers(["bot"], from: "messaging:before")
                try await eventually("the connection no longer watches messaging:before") {
                    connection.watchedChannels == ["messaging:later"]
                }
                #expect(await !server.server.watchers(of: "messaging:before").contains("bot"))
            }
        }
    }

    @Test("after being away: a channel added to meanwhile is watched and its messages synced; one removed from meanwhile is not watched again")
    func catchesUpAfterBeingAway() async throws {
        try await TestChatServer.withServer { server in
            let admin = server.client(as: "admin")
            try await admin.join("messaging:kept", as: "bot")
            try await admin.join("messaging:left", as: "bot")
            try await admin.join("messaging:joined", as: "ann")
            try await withEventConnection(server.client(as: "bot"), user: "bot", configuration: following) { connection, collector in
                #expect(Set(connection.watchedChannels) == ["messaging:kept", "messaging:left"])

                await server.server.refuseConnections(ofUser: "bot")
                try await eventually("the connection is down") { connection.connectionId == nil }
                try await admin.addMembers(["bot"], to: "messaging:joined")
                try await admin.channel("messaging:joined").sendMessage(text: "while away", id: "away-1")
                try await admin.removeMembers(["bot"], from: "messaging:left")
                await server.server.refuseConnections(ofUser: "bot", false)

                try await eventually("the connection is back") { connection.connectionCount >= 2 && connection.connectionId != nil }
                #expect(Set(connection.watchedChannels) == ["messaging:kept", "messaging:joined"])
                #expect(await server.server.watchers(of: "messaging:joined") == ["bot"])
                #expect(await server.server.watchers(of: "messaging:left").isEmpty)
                try await collector.wait { $0.contains { $0.message?.id == "away-1" } }

                try await admin.channel("messaging:left").sendMessage(text: "not for the bot", id: "left-1")
                try await admin.channel("messaging:kept").sendMessage(text: "marker", id: "kept-1")
                try await collector.wait { $0.contains { $0.message?.id == "kept-1" } }
                #expect(!collector.events.contains { $0.message?.id == "left-1" })
            }
        }
    }

    @Test("a turned-away connection is retried until it is let in")
    func refusedConnectionsAreRetried() async throws {
        try await TestChatServer.withServer { server in
            try await withEventConnection(server.client(as: "bot"), user: "bot") { connection, _ in
                await server.server.refuseConnections(ofUser: "bot")
                try await eventually("the connection is down") { connection.connectionId == nil }
                try await Task.sleep(for: .milliseconds(300))
                #expect(connection.connectionId == nil)
                #expect(await !server.server.isOnline("bot"))
                await server.server.refuseConnections(ofUser: "bot", false)
                try await eventually("the connection is back") { connection.connectionId != nil }
                #expect(connection.connectionCount == 2)
            }
        }
    }
}
