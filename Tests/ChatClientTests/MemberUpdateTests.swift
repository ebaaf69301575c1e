import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("Membership fields and flags taken back against the dev server")
struct MemberUpdateTests {
    @Test("partialUpdateMember sets and removes a member's own fields, keeps the rest, and the channel hears member.updated")
    func memberFields() async throws {
        try await TestChatServer.withServer { server in
            let moderator = server.client(as: "mod")
            try await moderator.join("messaging:club", as: "mod")
            try await moderator.join("messaging:club", as: "ann")
            try await withEventConnection(moderator, user: "mod") { connection, collector in
                try await connection.watch("messaging:club")
                let first = try await moderator.partialUpdateMember("ann", in: "messaging:club", set: ["strikes": 1, "note": "csv spam"])
                #expect(first.userId == "ann" && first.extraData["strikes"] == 1 && first.extraData["note"] == "csv spam")
                let second = try await moderator.partialUpdateMember("ann", in: "messaging:club", set: ["strikes": 2], unset: ["note"])
                #expect(second.extraData["strikes"] == 2 && second.extraData["note"] == nil && second.channelRole == "channel_member")
                try await collector.wait { $0.filter { $0.type.rawValue == "member.updated" }.count == 2 }
                let updated = try #require(collector.events.last { $0.type.rawValue == "member.updated" })
                #expect(updated.cid == "messaging:club" && updated.user?.id == "ann")
                let read = try #require(try await moderator.queryMembers(of: "messaging:club", filter: ["user_id": "ann"]).first)
                #expect(read.extraData["strikes"] == 2 && read.extraData["note"] == nil)
            }
        }
    }

    @Test("bad member updates are refused with what is wrong, and change nothing")
    func badMemberUpdates() async throws {
        try await TestChatServer.withServer { server in
            let admin = server.client(as: "admin")
            try await admin.join("messaging:club", as: "ann")
            try await admin.join("messaging:club", as: "bob")
            _ = try await admin.partialUpdateMember("ann", in: "messaging:club", set: ["strikes": 1])
            func refused(_ client: ChatClient, _ code: Int, _ text: String, user: String = "ann", in cid: ChannelId = "messaging:club",
                         set: [String: RawJSON] = [:], unset: [String] = []) async {
                await expectRefused(code, text) { try await client.partialUpdateMember(user, in: cid, set: set, unset: unset) }
            }
            await refused(admin, 4, "channel_role is a field the server owns and cannot be set or unset", set: ["channel_role": "channel_moderator"])
            await refused(admin, 4, "banned is a field the server owns and cannot be set or unset", unset: ["banned"])
            await refused(admin, 4, "strikes is both set and unset", set: ["strikes": 5], unset: ["strikes"])
            await refused(admin, 4, "set or unset must name at least one field")
            await refused(admin, 16, "user cy is not a member of channel messaging:club", user: "cy", set: ["strikes": 1])
            await refused(admin, 16, "channel messaging:nowhere does not exist", in: "messaging:nowhere", set: ["strikes": 1])
            await refused(server.userClient("bob"), 17, "user bob may only update its own membership", set: ["strikes": 0])
            let archived = try await server.userClient("bob").partialUpdateMember("bob", in: "messaging:club", set: ["archived": true])
            #expect(archived.extraData["archived_at"]?.stringValue.flatMap(RFC3339.date(from:)) != nil, "archiving is kept as when")
            let ann = try #require(try await admin.queryMembers(of: "messaging:club", filter: ["user_id": "ann"]).first)
            #expect(ann.extraData["strikes"] == 1 && ann.channelRole == "channel_member")
        }
    }

    @Test("unflagMessage takes back the acting user's flag only; one never set is a 404")
    func unflag() async throws {
        try await TestChatServer.withServer { server in
            let admin = server.client(as: "admin")
            try await admin.join("messaging:club", as: "ann")
            let message = try await admin.channel("messaging:club").sendMessage(text: "maybe spam", as: "ann")
            try await admin.flagMessage(message.id, reason: "spam", as: "mod")
            try await admin.flagMessage(message.id, reason: "rude", as: "bob")
            try await admin.unflagMessage(message.id, as: "mod")
            #expect(try await admin.messageFlags(in: "messaging:club").map(\.userId) == ["bob"])
            await #expect {
                try await admin.unflagMessage(message.id, as: "mod")
            } throws: { ($0 as? ChatClientError)?.streamCode == 16 && "\($0)".contains("user mod has not flagged message \(message.id)") }
            await #expect {
                try await admin.unflagMessage("no-such-message", as: "mod")
            } throws: { ($0 as? ChatClientError)?.streamCode == 16 && "\($0)".contains("message with id no-such-message does not exist") }
        }
    }
}
