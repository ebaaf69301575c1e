import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("Several messages and partial user updates against the dev server")
struct ManyMessagesTests {
    @Test("getMessages reads a channel's messages in the order asked, with fresh links, leaving out ids of no message there")
    func manyMessages() async throws {
        try await TestChatServer.withServer { server in
            let ann = server.client(as: "ann")
            try await ann.join("messaging:club", as: "ann")
            try await ann.join("messaging:other", as: "ann")
            let scratch = try ScratchFolder("client")
            let first = try await ann.channel("messaging:club").sendMessage(
                text: "a file", attachments: [try AnyAttachmentPayload(localFileURL: try scratch.file("notes.txt", bytes: 64), attachmentType: .file)])
            let second = try await ann.channel("messaging:club").sendMessage(text: "two")
            let elsewhere = try await ann.channel("messaging:other").sendMessage(text: "not here")
            let read = try await ann.getMessages([second.id, "no-such-message", first.id, elsewhere.id, second.id], in: "messaging:club")
            #expect(read.map(\.id) == [second.id, first.id], "asked order, each once, only this channel's")
            let link = try #require(read[1].attachments.first?.fileLink)
            #expect(SignedLink(link).expiresAt != nil, "attachment links come freshly signed")
            #expect(try await ann.getMessages([], in: "messaging:club").isEmpty)

            await #expect {
                try await ann.getMessages((0...100).map { "m\($0)" }, in: "messaging:club")
            } throws: { ($0 as? ChatClientError)?.code == .invalidRequest && "\($0)".contains("101 ids asked for; the service reads at most 100") }
            await #expect {
                try await ann.getMessages(["a,b"], in: "messaging:club")
            } throws: { ($0 as? ChatClientError)?.code == .invalidRequest && "\($0)".contains("ids are sent comma separated") }
            await #expect {
                try await ann.getMessages([first.id], in: "messaging:nowhere")
            } throws: { ($0 as? ChatClientError)?.streamCode == 16 && "\($0)".contains("channel messaging:nowhere does not exist") }
            let outsider = server.userClient("cy")
            await #expect {
                try await outsider.getMessages([first.id], in: "messaging:club")
            } throws: { ($0 as? ChatClientError)?.streamCode == 17 && "\($0)".contains("user cy is not a member of channel messaging:club") }
        }
    }

    @Test("partialUpdateUser sets and removes single fields and keeps the rest; bad changes are refused and change nothing")
    func partialUserUpdate() async throws {
        try await TestChatServer.withServer { server in
            let admin = server.client(as: "admin")
            try await admin.upsertUsers([User(id: "ann", name: "Ann", extraData: ["level": 1, "team": "red"])])
            let updated = try await admin.partialUpdateUser("ann", set: ["level": 2, "goal_km": 25, "role": "moderator"], unset: ["team"])
            #expect(updated.name == "Ann" && updated.role == "moderator")
            #expect(updated.extraData["level"] == 2 && updated.extraData["goal_km"] == 25 && updated.extraData["team"] == nil)
            let read = try #require(try await admin.queryUsers(ids: ["ann"]).first)
            #expect(read.extraData == updated.extraData && read.role == "moderator")

            let ann = server.userClient("ann")
            #expect(try await ann.partialUpdateUser("ann", set: ["level": 3]).extraData["level"] == 3, "a user may change its own fields")
            func refused(_ client: ChatClient, _ code: Int, _ text: String, set: [String: RawJSON] = [:], unset: [String] = [], id: String = "ann") async {
                await expectRefused(code, text) { try await client.partialUpdateUser(id, set: set, unset: unset) }
            }
            await refused(ann, 17, "user ann may only update itself", set: ["level": 9], id: "bob")
            await refused(ann, 17, "user ann may not change its own role", set: ["role": "admin"])
            await refused(admin, 4, "users[0]: created_at is a field the server owns and cannot be set or unset", set: ["created_at": "2020-01-01T00:00:00Z"])
            await refused(admin, 4, "users[0]: level is both set and unset", set: ["level": 1], unset: ["level"])
            await refused(admin, 4, "users[0]: set or unset must name at least one field")
            await refused(admin, 4, "users[0]: role cannot be unset", unset: ["role"])
            await refused(admin, 16, "user nobody does not exist; create it with POST /users first", set: ["level": 1], id: "nobody")
            let after = try #require(try await admin.queryUsers(ids: ["ann"]).first)
            #expect(after.extraData["level"] == 3 && after.role == "moderator")
            #expect(try await admin.queryUsers(ids: ["nobody"]).isEmpty)
        }
    }
}
