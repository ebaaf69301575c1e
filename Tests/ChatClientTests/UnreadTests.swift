import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("Unread counts, marking read and unread, against the dev server")
struct UnreadTests {
    @Test("others' messages since a member last read count as unread; marking read, unread and all read move the count")
    func unreadCounts() async throws {
        try await TestChatServer.withServer { server in
            let admin = server.client(as: "admin")
            let ann = server.userClient("ann")
            let bob = server.userClient("bob")
            try await admin.join("messaging:club", as: "ann")
            try await admin.join("messaging:club", as: "bob")
            try await admin.join("messaging:side", as: "ann")
            try await admin.join("messaging:side", as: "bob")
            let club = bob.channel("messaging:club")
            let first = try await club.sendMessage(text: "one")
            let second = try await club.sendMessage(text: "two")
            _ = try await bob.sendMessage(OutgoingMessage(text: "quietly", isSilent: true), to: "messaging:club")
            _ = try await bob.sendMessage(OutgoingMessage(text: "in the thread", parentId: first.id), to: "messaging:club")
            _ = try await bob.sendMessage(OutgoingMessage(text: "shown", parentId: first.id, showInChannel: true), to: "messaging:club")
            let deleted = try await club.sendMessage(text: "oops")
            _ = try await bob.deleteMessage(deleted.id)
            _ = try await bob.channel("messaging:side").sendMessage(text: "elsewhere")

            // one, two and the reply shown in the channel: not the silent one, the thread-only reply or the deleted one.
            var counts = try await ann.unreadCounts()
            #expect(counts.unread(in: "messaging:club") == 3 && counts.unread(in: "messaging:side") == 1 && counts.totalUnreadCount == 4)
            #expect(try await bob.unreadCounts().totalUnreadCount == 0, "posting reads the channel for the sender")
            let reads = try await ann.queryChannel("messaging:club").reads
            #expect(Set(reads.map(\.userId)) == ["ann", "bob"])
            #expect(reads.first { $0.userId == "ann" }?.unreadMessages == 3 && reads.first { $0.userId == "bob" }?.unreadMessages == 0)

            try await ann.markRead("messaging:club", messageId: first.id)
            #expect(try await ann.unreadCounts().unread(in: "messaging:club") == 2, "read up to the first message")
            try await ann.markRead("messaging:club")
            #expect(try await ann.unreadCounts().unread(in: "messaging:club") == 0)
            try await withEventConnection(ann, user: "ann") { _, events in
                try await ann.markUnread("messaging:club", from: second.id)
                try await events.wait { $0.contains { $0.type == .notificationMarkUnread } }
                let notice = try #require(events.events.first { $0.type == .notificationMarkUnread })
                #expect(notice.extraData["first_unread_message_id"]?.stringValue == second.id)
                #expect(notice.extraData["last_read_message_id"]?.stringValue == first.id)
                #expect(notice.extraData["unread_messages"] == 2 && notice.extraData["total_unread_count"] == 3)
                #expect(notice.extraData["unread_channels"] == 2)
            }
            counts = try await ann.unreadCounts()
            #expect(counts.unread(in: "messaging:club") == 2 && counts.totalUnreadCount == 3)
            try await ann.markAllRead()
            #expect(try await ann.unreadCounts().totalUnreadCount == 0)
            _ = try await club.sendMessage(text: "three")
            #expect(try await admin.unreadCounts(of: "ann").unread(in: "messaging:club") == 1, "a server token names the user")
            _ = try await admin.truncateChannel("messaging:club", as: "admin")
            #expect(try await admin.unreadCounts(of: "ann").totalUnreadCount == 0, "truncated messages are not unread")
        }
    }

    @Test("bad reads are refused with what is wrong, and change no count")
    func badReads() async throws {
        try await TestChatServer.withServer { server in
            let admin = server.client(as: "admin")
            let ann = server.userClient("ann")
            try await admin.join("messaging:club", as: "ann")
            try await admin.join("messaging:club", as: "bob")
            try await admin.join("messaging:other", as: "admin")
            let mine = try await server.userClient("bob").channel("messaging:club").sendMessage(text: "hello")
            let elsewhere = try await admin.channel("messaging:other").sendMessage(text: "not in club")
            await expectRefused(16, "message with id missing does not exist") { try await ann.markUnread("messaging:club", from: "missing") }
            await expectRefused(4, "message \(elsewhere.id) is not in channel messaging:club") {
                try await ann.markUnread("messaging:club", from: elsewhere.id)
            }
            await expectRefused(4, "message \(elsewhere.id) is not in channel messaging:club") {
                try await ann.markRead("messaging:club", messageId: elsewhere.id)
            }
            await expectRefused(4, "user carl is not a member of channel messaging:club, so has nothing to mark unread") {
                try await admin.markUnread("messaging:club", from: mine.id, as: "carl")
            }
            await expectRefused(17, "user ann is not a member of channel messaging:other") {
                try await ann.markUnread("messaging:other", from: elsewhere.id)
            }
            await expectRefused(16, "user nobody does not exist") { try await admin.unreadCounts(of: "nobody") }
            await expectRefused(16, "user nobody does not exist") { try await admin.markAllRead(as: "nobody") }
            #expect(try await ann.unreadCounts().unread(in: "messaging:club") == 1, "nothing refused changed the count")
        }
    }
}
