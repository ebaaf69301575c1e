import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Foundation
import Testing

@Suite("Joining, watching and listing channels in Query Channels pages against the dev server")
struct ChannelPagesTests {
    /// `messaging:p00`, `messaging:p01`, ...
    static func channels(_ range: Range<Int>) -> [ChannelId] {
        range.map { ChannelId(type: .messaging, id: String(format: "p%02d", $0)) }
    }

    @Test("70 channels (40 joined before, 20 to join, 10 missing, 5 listed twice): 3 pages, 10 creations, 20 joins, nothing else")
    func joinsInPages() async throws {
        try await TestChatServer.withServer { server in
            let owner = server.client(as: "owner")
            try await owner.upsertUsers([User(id: "owner"), User(id: "bee")])
            let all = Self.channels(0..<70)
            for cid in all[0..<40] { try await owner.queryChannel(cid, members: ["owner", "bee"], messageLimit: 0) }
            for cid in all[40..<60] { try await owner.queryChannel(cid, members: ["owner"], messageLimit: 0) }
            let bee = server.client(as: "bee")
            let before = server.server.requestCounts

            let report = try await bee.joinChannels(all + all[0..<5], as: "bee")
            #expect(report.ready == all)
            #expect(report.joined == Array(all[40..<60]))
            #expect(report.created == Array(all[60..<70]))
            #expect(report.failures.isEmpty && report.missing.isEmpty)
            #expect(report.calls == 3 + 20 + 10)
            let counts = server.server.requestCounts
            #expect(counts[.queryChannels, default: 0] - before[.queryChannels, default: 0] == 3)
            #expect(counts[.updateChannel, default: 0] - before[.updateChannel, default: 0] == 20)
            #expect(counts[.getOrCreateChannel, default: 0] - before[.getOrCreateChannel, default: 0] == 10)
            #expect(Set(try await bee.memberChannels(of: "bee")) == Set(all))

            // Again: every channel is found with bee a member; one page call per 30, nothing else.
            let again = try await bee.joinChannels(all, as: "bee")
            #expect(again.calls == 3 && again.joined.isEmpty && again.created.isEmpty && again.ready == all)
        }
    }

    @Test("watchChannels creates nothing: a deleted channel and one that never existed come back as missing")
    func watchingCreatesNothing() async throws {
        try await TestChatServer.withServer { server in
            let owner = server.client(as: "owner")
            try await owner.upsertUsers([User(id: "owner")])
            let existing = Self.channels(0..<3)
            for cid in existing { try await owner.queryChannel(cid, members: ["owner"], messageLimit: 0) }
            _ = try await owner.deleteChannel(existing[2])
            try await withEventConnection(owner, user: "owner") { connection, _ in
                let connectionId = try #require(connection.connectionId)
                let report = try await owner.watchChannels(existing + ["messaging:never"], connectionId: connectionId)
                #expect(report.ready == Array(existing[0..<2]))
                #expect(report.missing == [existing[2], "messaging:never"])
                #expect(report.calls == 1)
                for cid in existing[0..<2] { #expect(await server.server.watchers(of: cid).contains("owner")) }
                #expect(Set(try await owner.existingChannels(existing + ["messaging:never"])) == Set(existing[0..<2]))
            }
        }
    }

    @Test("the member channels of a user, 65 of them, come back once each in creation order, 30 a page")
    func memberChannelsInOrder() async throws {
        try await TestChatServer.withServer { server in
            let owner = server.client(as: "owner")
            try await owner.upsertUsers([User(id: "owner"), User(id: "bee")])
            let all = Self.channels(0..<65)
            for cid in all { try await owner.queryChannel(cid, members: ["owner", "bee"], messageLimit: 0) }
            // A message moves a channel first in the default order, not in creation order.
            try await owner.channel(all[64]).sendMessage(text: "latest")
            try await owner.channel(all[10]).sendMessage(text: "later still")
            #expect(try await owner.memberChannels(of: "bee") == all)
            let latest = try await owner.queryChannels(filter: ["members": ["$in": ["bee"]]], limit: 2, messageLimit: 0)
            #expect(latest.map(\.channel.cid) == [all[10], all[64]])
            let secondPage = try await owner.queryChannels(
                filter: ["members": ["$in": ["bee"]]], sort: [("created_at", -1)], limit: 30, offset: 30, messageLimit: 0)
            #expect(secondPage.map(\.channel.cid) == Array(all[5..<35].reversed()))
        }
    }
}
