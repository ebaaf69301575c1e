import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("Pinned messages against the dev server")
struct PinTests {
    @Test("a pin says who pinned and when, and until when; the channel lists its pins, the latest first; edits keep a pin; expiry and unpinning end it")
    func pinLifecycle() async throws {
        try await TestChatServer.withServer { server in
            let ann = server.userClient("ann")
            let bob = server.userClient("bob")
            let admin = server.client(as: "admin")
            try await admin.upsertUsers([User(id: "ann", name: "Ann"), User(id: "bob", name: "Bob")])
            try await admin.join("messaging:club", as: "ann")
            try await admin.join("messaging:club", as: "bob")
            let rules = try await ann.channel("messaging:club").sendMessage(text: "house rules")
            let meetup = try await ann.channel("messaging:club").sendMessage(text: "meet at 6")
            #expect(rules.isPinned == false && rules.pinnedAt == nil && rules.pinnedBy == nil)

            let before = Date()
            let pinned = try await bob.pinMessage(rules.id)
            #expect(pinned.isPinned == true, "any member may pin anyone's message")
            #expect(pinned.pinnedBy?.id == "bob" && pinned.pinnedBy?.name == "Bob")
            let pinnedAt = try #require(pinned.pinnedAt)
            #expect(abs(pinnedAt.timeIntervalSince(before)) < 5)
            #expect(pinned.pinExpires == nil)
            // Long enough for the checks made while it holds, under the sanitizers too.
            let until = Date().addingTimeInterval(3)
            let shortPin = try await ann.pinMessage(meetup.id, until: until)
            #expect(abs(try #require(shortPin.pinExpires).timeIntervalSince(until)) < 0.001)
            #expect(try await ann.queryChannel("messaging:club").pinnedMessages.map(\.id) == [meetup.id, rules.id])

            _ = try await ann.partialUpdateMessage(rules.id, set: ["text": "house rules (v2)"])
            _ = try await ann.updateMessage(rules.id, text: "house rules (v3)")
            let edited = try await ann.getMessage(rules.id)
            #expect(edited.text == "house rules (v3)" && edited.isPinned == true, "edits that do not mention the pin keep it")
            #expect(edited.pinnedBy?.id == "bob" && edited.pinnedAt == pinnedAt, "pinning again or editing keeps who pinned and when")

            try await eventually("the short pin expires") {
                try await ann.queryChannel("messaging:club").pinnedMessages.map(\.id) == [rules.id]
            }
            let expired = try await ann.getMessage(meetup.id)
            #expect(expired.isPinned == false && expired.pinnedAt == nil && expired.pinExpires == nil)

            let unpinned = try await bob.unpinMessage(rules.id)
            #expect(unpinned.isPinned == false && unpinned.pinnedBy == nil)
            #expect(try await ann.queryChannel("messaging:club").pinnedMessages.isEmpty)

            let announced = try await ann.sendMessage(
                OutgoingMessage(text: "pinned from the start", isPinned: true, pinExpires: Date().addingTimeInterval(3600)), to: "messaging:club")
            #expect(announced.isPinned == true && announced.pinnedBy?.id == "ann" && announced.pinExpires != nil, "a message can be sent pinned")
        }
    }

    @Test("bad pins are refused with what is wrong, and leave the message as it was")
    func badPins() async throws {
        try await TestChatServer.withServer { server in
            let ann = server.userClient("ann")
            let bob = server.userClient("bob")
            let admin = server.client(as: "admin")
            try await admin.join("messaging:club", as: "ann")
            try await admin.join("messaging:club", as: "bob")
            try await admin.join("messaging:other", as: "admin")
            let message = try await ann.channel("messaging:club").sendMessage(text: "hello")
            await expectRefused(4, "pinned must be true or false, found string") {
                try await ann.partialUpdateMessage(message.id, set: ["pinned": "yes"])
            }
            await expectRefused(4, "pin_expires must be an RFC 3339 timestamp") {
                try await ann.partialUpdateMessage(message.id, set: ["pinned": true, "pin_expires": "tomorrow"])
            }
            await expectRefused(4, "pin_expires must be an RFC 3339 timestamp") {
                try await ann.partialUpdateMessage(message.id, set: ["pinned": true, "pin_expires": 120])
            }
            await expectRefused(4, "has passed; a pin must expire in the future") {
                try await ann.pinMessage(message.id, until: Date().addingTimeInterval(-60))
            }
            await expectRefused(17, "user bob may only edit their own messages") {
                try await bob.partialUpdateMessage(message.id, set: ["pinned": true, "text": "mine now"])
            }
            let outsider = server.userClient("cy")
            await expectRefused(17, "user cy is not a member of channel messaging:club") { try await outsider.pinMessage(message.id) }
            let unchanged = try await ann.getMessage(message.id)
            #expect(unchanged.text == "hello" && unchanged.isPinned == false)
            #expect(try await ann.queryChannel("messaging:club").pinnedMessages.isEmpty)
        }
    }
}

@Suite("Pinned messages listed and paged against the dev server")
struct PinnedMessagesListTests {
    @Test("pinnedMessages lists the pins in force, the latest first, and pages back by pinnedBefore; a bad page is refused")
    func listAndPage() async throws {
        try await TestChatServer.withServer { server in
            let ann = server.client(as: "ann")
            try await ann.join("messaging:club", as: "ann")
            var ids: [String] = []
            for index in 0..<5 {
                let message = try await ann.channel("messaging:club").sendMessage(text: "notice \(index)")
                _ = try await ann.pinMessage(message.id)
                ids.append(message.id)
            }
            _ = try await ann.unpinMessage(ids[1])
            let unpinned = ids.remove(at: 1)
            let first = try await ann.pinnedMessages(in: "messaging:club", limit: 2)
            #expect(first.map(\.id) == [ids[3], ids[2]])
            let next = try await ann.pinnedMessages(in: "messaging:club", limit: 2, pinnedBefore: try #require(first.last?.pinnedAt))
            #expect(next.map(\.id) == [ids[1], ids[0]])
            let last = try await ann.pinnedMessages(in: "messaging:club", limit: 2, pinnedBefore: try #require(next.last?.pinnedAt))
            #expect(last.isEmpty && !ids.contains(unpinned))

            await #expect {
                try await ann.pinnedMessages(in: "messaging:club", limit: 0)
            } throws: { ($0 as? ChatClientError)?.code == .invalidRequest && "\($0)".contains("limit must be from 1 to 100, not 0") }
            await #expect {
                try await ann.pinnedMessages(in: "messaging:nowhere")
            } throws: { ($0 as? ChatClientError)?.streamCode == 16 && "\($0)".contains("channel messaging:nowhere does not exist") }
            await #expect {
                try await server.userClient("cy").pinnedMessages(in: "messaging:club")
            } throws: { ($0 as? ChatClientError)?.streamCode == 17 && "\($0)".contains("user cy is not a member of channel messaging:club") }
        }
    }
}
