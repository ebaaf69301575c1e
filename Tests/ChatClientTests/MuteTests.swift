import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("Muting users and channels against the dev server")
struct MuteTests {
    /// The user's mutes as their connection's `me` lists them: muted user ids and channel cids.
    static func mutes(in events: [Event]) -> (users: [String], channels: [String])? {
        guard let me = events.last(where: { $0.type.rawValue.hasSuffix("mutes_updated") })?.me else { return nil }
        let users = me.extraData["mutes"]?.arrayValue?.compactMap { $0["target"]?["id"]?.stringValue } ?? []
        let channels = me.extraData["channel_mutes"]?.arrayValue?.compactMap { $0["channel"]?["cid"]?.stringValue } ?? []
        return (users, channels)
    }

    @Test("a user mutes others and channels, for good or for a while; their connections hear the new mutes; unmuting ends them")
    func muteLifecycle() async throws {
        try await TestChatServer.withServer { server in
            let admin = server.client(as: "admin")
            let ann = server.userClient("ann")
            try await admin.upsertUsers([User(id: "ann"), User(id: "bob"), User(id: "spammer")])
            try await admin.join("messaging:club", as: "ann")
            try await admin.join("messaging:noisy", as: "ann")
            try await withEventConnection(ann, user: "ann") { _, events in
                let before = Date()
                let forGood = try await ann.muteUser("spammer")
                #expect(forGood.userId == "ann" && forGood.target == "spammer" && forGood.expires == nil)
                let forAWhile = try await ann.muteUser("bob", for: .seconds(120))
                let expires = try #require(forAWhile.expires)
                #expect(abs(expires.timeIntervalSince(before) - 120) < 10)
                let channel = try await ann.muteChannel("messaging:noisy", for: .milliseconds(1500))
                #expect(channel.target == "messaging:noisy" && channel.expires != nil)
                try await events.wait { Self.mutes(in: $0).map { $0.users == ["spammer", "bob"] && $0.channels == ["messaging:noisy"] } ?? false }

                try await ann.unmuteUser("spammer")
                try await events.wait { Self.mutes(in: $0)?.users == ["bob"] }
                try await admin.muteUser("spammer", as: "ann")
                try await events.wait { Self.mutes(in: $0)?.users == ["bob", "spammer"] }
                // The channel's mute ends by itself: the next update no longer lists it.
                try await Task.sleep(for: .seconds(2))
                try await ann.unmuteChannel("messaging:club")
                try await events.wait { Self.mutes(in: $0)?.channels == [] }
            }
        }
    }

    @Test("bad mutes are refused with what is wrong, and change no mute")
    func badMutes() async throws {
        try await TestChatServer.withServer { server in
            let admin = server.client(as: "admin")
            let ann = server.userClient("ann")
            try await admin.upsertUsers([User(id: "ann"), User(id: "bob")])
            try await admin.join("messaging:club", as: "ann")
            try await admin.join("messaging:other", as: "admin")
            await expectRefused(4, "user ann cannot mute themselves") { try await ann.muteUser("ann") }
            await expectRefused(16, "user ghost does not exist") { try await ann.muteUser("ghost") }
            await expectRefused(16, "channel messaging:gone does not exist") { try await ann.muteChannel("messaging:gone") }
            await expectRefused(17, "user ann is not a member of channel messaging:other") { try await ann.muteChannel("messaging:other") }
            await #expect(throws: ChatClientError.self, "half a minute is refused before sending") {
                try await ann.muteUser("bob", for: .seconds(30))
            }
            try await withEventConnection(ann, user: "ann") { _, events in
                try await ann.unmuteUser("bob")
                try await events.wait { Self.mutes(in: $0).map { $0.users.isEmpty && $0.channels.isEmpty } ?? false }
            }
        }
    }
}
