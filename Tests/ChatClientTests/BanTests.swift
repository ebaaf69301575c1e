import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("Bans against the dev server")
struct BanTests {
    @Test("a channel ban refuses the user's messages there (code 17), is listed with its end, reaches watchers, and lifts")
    func channelBan() async throws {
        try await TestChatServer.withServer { server in
            let moderator = server.client(as: "mod")
            let ann = server.client(as: "ann")
            try await ann.upsertUsers([User(id: "ann")])
            for cid: ChannelId in ["messaging:club", "messaging:other"] {
                try await moderator.join(cid, as: "mod")
                try await ann.join(cid, as: "ann")
            }
            try await withEventConnection(moderator, user: "mod") { connection, collector in
                try await connection.watch("messaging:club")
                try await moderator.banUser("ann", in: "messaging:club", reason: "spam files", timeout: .seconds(90))
                try await collector.wait { $0.contains { $0.type.rawValue == "user.banned" } }
                let banned = try #require(collector.events.first { $0.type.rawValue == "user.banned" })
                #expect(banned.user?.id == "ann" && banned.cid == "messaging:club")
                #expect(banned.extraData["reason"] == .string("spam files"))

                await #expect {
                    try await ann.channel("messaging:club").sendMessage(text: "buy now")
                } throws: { error in
                    guard let error = error as? ChatClientError else { return false }
                    return error.streamCode == 17 && error.httpStatus == 403 && error.message.contains("user ann is banned from channel messaging:club until")
                }
                try await ann.channel("messaging:other").sendMessage(text: "elsewhere is fine")

                let bans = try await moderator.bannedUsers(in: "messaging:club")
                #expect(bans.map(\.userId) == ["ann"] && bans.first?.bannedBy == "mod" && bans.first?.cid == "messaging:club")
                let minutes = try #require(bans.first?.expires).timeIntervalSince(try #require(bans.first?.createdAt)) / 60
                #expect(abs(minutes - 2) < 0.01, "90 seconds is rounded up to 2 minutes, as the service counts them")
                #expect(try await moderator.bannedUsers(userId: "mod").isEmpty)

                try await moderator.unbanUser("ann", in: "messaging:club")
                try await collector.wait { $0.contains { $0.type.rawValue == "user.unbanned" } }
                try await ann.channel("messaging:club").sendMessage(text: "sorry")
                #expect(try await moderator.bannedUsers().isEmpty)
            }
        }
    }

    @Test("bad bans are refused before or by the server, and ban no one")
    func badBans() async throws {
        try await TestChatServer.withServer { server in
            let moderator = server.client(as: "mod")
            try await moderator.join("messaging:club", as: "mod")
            await #expect {
                try await moderator.banUser("mod", in: "messaging:club", timeout: .zero)
            } throws: { ($0 as? ChatClientError)?.code == .invalidRequest && "\($0)".contains("longer than zero") }
            await #expect {
                try await moderator.banUser("nobody", in: "messaging:club")
            } throws: { ($0 as? ChatClientError)?.streamCode == 16 && "\($0)".contains("target user nobody does not exist") }
            await #expect {
                try await moderator.banUser("mod", in: "messaging:nowhere")
            } throws: { ($0 as? ChatClientError)?.streamCode == 16 && "\($0)".contains("channel messaging:nowhere does not exist") }
            #expect(try await moderator.bannedUsers().isEmpty)
        }
    }
}
