import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("Channel updates, freezing, truncation, deletion and member queries against the dev server")
struct ChannelLifecycleTests {
    /// A channel `messaging:club` created by `owner` (server token) with ann and bob as
    /// members; ann also gets a user-token client, as an app would have.
    func withClub(_ body: (TestChatServer, ChatClient, ChatClient) async throws -> Void) async throws {
        try await TestChatServer.withServer { server in
            let owner = server.client(as: "owner")
            try await owner.upsertUsers([User(id: "owner"), User(id: "ann", name: "Ann Lee"), User(id: "bob", name: "Bob Annesley")])
            try await owner.queryChannel("messaging:club", members: ["owner", "ann", "bob"])
            let ann = server.userClient("ann")
            try await body(server, owner, ann)
        }
    }

    @Test("a frozen channel refuses its users' messages (as an error message, stored nowhere) and reactions (403), not server-side calls")
    func freezing() async throws {
        try await withClub { _, owner, ann in
            let before = try await ann.channel("messaging:club").sendMessage(text: "before")
            try await withEventConnection(owner, user: "owner") { connection, collector in
                try await connection.watch("messaging:club")
                let frozen = try await owner.channel("messaging:club").freeze()
                #expect(frozen.isFrozen == true)
                try await collector.wait { $0.contains { $0.type.rawValue == "channel.updated" } }
                #expect(collector.events.first { $0.type.rawValue == "channel.updated" }?.channel?.isFrozen == true)

                await #expect {
                    try await ann.channel("messaging:club").sendMessage(text: "let me in", id: "refused-1")
                } throws: { error in
                    guard let error = error as? ChatClientError else { return false }
                    return error.code == .messageRefused && error.message.contains("did not take message refused-1")
                        && error.message.contains("Sorry, this channel has been frozen by the admin")
                }
                await #expect {
                    try await ann.sendReaction("like", to: before.id)
                } throws: { error in
                    guard let error = error as? ChatClientError else { return false }
                    return error.streamCode == 17 && error.httpStatus == 403 && error.message.contains("channel messaging:club is frozen")
                }
                await #expect { try await owner.getMessage("refused-1") } throws: { ($0 as? ChatClientError)?.streamCode == 16 }

                // Server-side calls skip permission checks, so a bot can still speak in it.
                let notice = try await owner.channel("messaging:club").sendMessage(text: "frozen for cleaning")
                #expect(notice.type == .regular)
                try await collector.wait { $0.contains { $0.message?.id == notice.id } }
                #expect(!collector.events.contains { $0.message?.id == "refused-1" })

                let thawed = try await owner.unfreezeChannel("messaging:club")
                #expect(thawed.isFrozen == false)
                try await ann.channel("messaging:club").sendMessage(text: "let me in", id: "accepted-1")
                try await ann.sendReaction("like", to: before.id)
            }
        }
    }

    @Test("partial updates set and unset fields; server fields, bad values and plain members are refused and change nothing")
    func partialUpdates() async throws {
        try await withClub { _, owner, ann in
            let named = try await owner.updateChannelPartial("messaging:club", set: ["name": "Run club", "color": "blue"])
            #expect(named.name == "Run club" && named.extraData["color"] == .string("blue"))
            let unset = try await owner.updateChannelPartial("messaging:club", unset: ["color"])
            #expect(unset.name == "Run club" && unset.extraData["color"] == nil)

            let refusals: [(set: [String: RawJSON], unset: [String], reason: String)] = [
                ([:], [], "set or unset must name at least one field"),
                (["cid": "messaging:other"], [], "cid is a field the server owns"),
                ([:], ["created_by"], "created_by is a field the server owns"),
                (["frozen": "yes"], [], "frozen must be true or false, not string"),
                (["name": 7], [], "name must be a string, not number"),
                (["color": "red"], ["color"], "color is both set and unset"),
            ]
            for refusal in refusals {
                await #expect {
                    try await owner.updateChannelPartial("messaging:club", set: refusal.set, unset: refusal.unset)
                } throws: { error in
                    guard let error = error as? ChatClientError else { return false }
                    return error.streamCode == 4 && error.httpStatus == 400 && error.message.contains(refusal.reason)
                }
            }
            await #expect {
                try await ann.updateChannelPartial("messaging:club", set: ["name": "Ann's club"])
            } throws: { error in
                guard let error = error as? ChatClientError else { return false }
                return error.streamCode == 17 && error.message.contains("user ann may not change channel messaging:club")
            }
            let state = try await owner.queryChannel("messaging:club")
            #expect(state.channel.name == "Run club" && state.channel.isFrozen == false && state.channel.extraData["color"] == nil)
        }
    }

    @Test("truncation hides the history (soft: still readable as deleted; hard: gone), up to a date if given, then posts its notice")
    func truncation() async throws {
        try await withClub { _, owner, ann in
            let club = ann.channel("messaging:club")
            let first = try await club.sendMessage(text: "first")
            let second = try await club.sendMessage(text: "second")
            try await Task.sleep(for: .milliseconds(20))
            let cutoff = Date()
            try await Task.sleep(for: .milliseconds(20))
            let third = try await club.sendMessage(text: "third")

            let partly = try await owner.truncateChannel("messaging:club", upTo: cutoff)
            #expect(partly.truncatedAt != nil)
            #expect(try await owner.queryChannel("messaging:club").messages.map(\.id) == [third.id])
            #expect(try await owner.getMessage(first.id).type == .deleted, "a soft truncation keeps the messages as deleted ones")

            let emptied = try await owner.channel("messaging:club").truncate(hardDelete: true, notice: "History cleared")
            #expect(try #require(emptied.truncatedAt) >= cutoff)
            let messages = try await owner.queryChannel("messaging:club").messages
            #expect(messages.map(\.text) == ["History cleared"] && messages.first?.type == .system)
            for removed in [first, second, third] {
                await #expect("a hard truncation also removes what an earlier one soft-deleted") {
                    try await owner.getMessage(removed.id)
                } throws: { ($0 as? ChatClientError)?.streamCode == 16 }
            }

            await #expect {
                try await ann.truncateChannel("messaging:club")
            } throws: { ($0 as? ChatClientError)?.streamCode == 17 }
        }
    }

    @Test("a hidden channel leaves the member's list until shown or a new message; clearing history hides what was sent so far")
    func hiding() async throws {
        try await withClub { server, owner, ann in
            let old = try await owner.channel("messaging:club").sendMessage(text: "before")
            try await ann.hideChannel("messaging:club", clearingHistory: true)
            #expect(try await ann.queryChannels(filter: ["cid": "messaging:club"]).isEmpty)
            let hidden = try #require(try await ann.queryChannels(filter: ["cid": "messaging:club", "hidden": true]).first)
            #expect(hidden.isHidden && hidden.messages.isEmpty, "its history so far is cleared for ann")
            #expect(try await owner.queryChannel("messaging:club").messages.map(\.id) == [old.id], "not for the others")

            let new = try await owner.channel("messaging:club").sendMessage(text: "after")
            let shown = try #require(try await ann.queryChannels(filter: ["cid": "messaging:club"]).first)
            #expect(!shown.isHidden && shown.messages.map(\.id) == [new.id], "a new message shows it again")

            let bob = server.userClient("bob")
            try await owner.hideChannel("messaging:club", as: "bob")
            #expect(try await bob.queryChannel("messaging:club").isHidden)
            try await owner.showChannel("messaging:club", as: "bob")
            #expect(try await bob.queryChannel("messaging:club").isHidden == false)
            await expectRefused(4, "user outsider is not a member of channel messaging:club") {
                try await owner.hideChannel("messaging:club", as: "outsider")
            }
        }
    }

    @Test("a deleted channel is gone for everyone with its messages; created again, it starts empty")
    func deletion() async throws {
        try await withClub { _, owner, ann in
            let message = try await ann.channel("messaging:club").sendMessage(text: "hello")
            await #expect {
                try await ann.deleteChannel("messaging:club")
            } throws: { ($0 as? ChatClientError)?.streamCode == 17 }

            let deleted = try await owner.channel("messaging:club").delete()
            #expect(deleted.deletedAt != nil)
            #expect(try await owner.queryChannels(filter: ["cid": "messaging:club"]).isEmpty)
            await #expect { try await owner.getMessage(message.id) } throws: { error in
                guard let error = error as? ChatClientError else { return false }
                return error.streamCode == 16 && error.message.contains("channel messaging:club does not exist")
            }
            await #expect { try await owner.deleteChannel("messaging:club") } throws: { ($0 as? ChatClientError)?.streamCode == 16 }

            let again = try await owner.queryChannel("messaging:club", members: ["owner"])
            #expect(again.messages.isEmpty && again.members.map(\.userId) == ["owner"] && again.channel.deletedAt == nil)
            await #expect {
                try await ann.channel("messaging:club").sendMessage(text: "still here?")
            } throws: { ($0 as? ChatClientError)?.streamCode == 17 }
        }
    }

    @Test("member queries filter by id, role, ban and name, sort and page; unknown fields are refused")
    func memberQueries() async throws {
        try await withClub { _, owner, _ in
            try await owner.banUser("bob", in: "messaging:club")
            let club = owner.channel("messaging:club")
            #expect(try await club.queryMembers().map(\.userId) == ["owner", "ann", "bob"])
            #expect(try await club.queryMembers(filter: ["banned": true]).map(\.userId) == ["bob"])
            #expect(try await club.queryMembers(filter: ["id": ["$in": ["ann", "zed"]]]).map(\.userId) == ["ann"])
            #expect(try await club.queryMembers(filter: ["name": ["$autocomplete": "ann"]]).map(\.userId) == ["ann", "bob"])
            #expect(try await club.queryMembers(filter: ["channel_role": "channel_member"], sort: [("user_id", -1)]).map(\.userId) == ["owner", "bob", "ann"])
            #expect(try await club.queryMembers(sort: [("user_id", 1)], limit: 1, offset: 1).map(\.userId) == ["bob"])

            let refusals: [(filter: JSONObject, reason: String)] = [
                (["color": "blue"], "filter field \"color\" is not supported by the dev server"),
                (["banned": "yes"], "filter on banned must be true or false"),
                (["id": ["$gt": "a"]], "filter on id must be a string"),
            ]
            for refusal in refusals {
                await #expect {
                    try await club.queryMembers(filter: refusal.filter)
                } throws: { ($0 as? ChatClientError)?.streamCode == 4 && "\($0)".contains(refusal.reason) }
            }
            await #expect { try await club.queryMembers(sort: [("color", 1)]) } throws: { "\($0)".contains("sort field must be one of") }
            await #expect { try await club.queryMembers(limit: 0) } throws: { "\($0)".contains("limit must be a whole number from 1 to 300") }
            await #expect {
                try await owner.queryMembers(of: "messaging:nowhere")
            } throws: { ($0 as? ChatClientError)?.streamCode == 16 }
        }
    }

    @Test("a message's reactions are listed newest first and paged")
    func reactionList() async throws {
        try await withClub { server, owner, _ in
            let message = try await owner.channel("messaging:club").sendMessage(text: "rate this", as: "ann")
            for (user, type) in [("ann", "like"), ("bob", "love"), ("owner", "wow")] {
                try await server.client(as: user).sendReaction(type, to: message.id)
            }
            #expect(try await owner.reactions(of: message.id).map(\.type) == ["wow", "love", "like"])
            #expect(try await owner.reactions(of: message.id, limit: 1, offset: 1).map(\.userId) == ["bob"])
            await #expect { try await owner.reactions(of: message.id, limit: 500) } throws: { "\($0)".contains("limit must be a whole number from 1 to 300") }
            await #expect { try await owner.reactions(of: "nope") } throws: { ($0 as? ChatClientError)?.streamCode == 16 }
        }
    }
}
