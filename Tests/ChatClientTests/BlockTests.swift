import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("Blocking users against the dev server")
struct BlockTests {
    @Test("a block hides the one-to-one channel for the blocker and refuses the blocked user's posts there; group channels go on")
    func blocks() async throws {
        try await TestChatServer.withServer { server in
            let admin = server.client(as: "admin")
            try await admin.queryChannel("messaging:ann-troll", members: ["ann", "troll"], createdBy: "ann")
            try await admin.queryChannel("messaging:club", members: ["ann", "troll", "bob"], createdBy: "ann")
            let ann = server.userClient("ann")
            let troll = server.userClient("troll")
            try await ann.blockUser("troll")
            #expect(try await ann.blockedUsers() == ["troll"])
            #expect(try await ann.queryChannels(filter: ["members": ["$in": ["ann"]]]).map(\.channel.cid) == ["messaging:club"])
            await expectRefused(17, "user ann blocked user troll, who can no longer post in their one-to-one channel messaging:ann-troll") {
                try await troll.channel("messaging:ann-troll").sendMessage(text: "hello?")
            }
            #expect(try await troll.channel("messaging:club").sendMessage(text: "in the club").text == "in the club")
            try await ann.unblockUser("troll")
            #expect(try await admin.blockedUsers(of: "ann").isEmpty)
            #expect(try await troll.channel("messaging:ann-troll").sendMessage(text: "sorry").text == "sorry")
            await expectRefused(4, "user ann cannot block themselves") { try await ann.blockUser("ann") }
        }
    }
}
