import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("Shared locations against the dev server")
struct SharedLocationTests {
    @Test("a live location is shared, moved (message.updated, the message's own updated_at kept), listed while live, and stopped")
    func liveLocation() async throws {
        try await TestChatServer.withServer { server in
            let admin = server.client(as: "admin")
            try await admin.upsertUsers([User(id: "ann"), User(id: "coach")])
            for user in ["ann", "coach"] { try await admin.join("messaging:club", as: user) }
            let ann = server.userClient("ann")
            try await withEventConnection(admin, user: "coach") { connection, collector in
                try await connection.watch("messaging:club")
                let until = Date().addingTimeInterval(3600)
                let sent = try await ann.channel("messaging:club").shareLocation(
                    latitude: 52.52, longitude: 13.405, until: until, text: "run", deviceId: "phone")
                let shared = try #require(sent.sharedLocation)
                #expect(shared.isLive && shared.isShared(at: Date()) && !shared.isStopped)
                #expect(shared.messageId == sent.id && shared.userId == "ann" && shared.cid == "messaging:club" && shared.deviceId == "phone")
                let endAt = try #require(shared.endAt)
                #expect(shared.latitude == 52.52 && shared.longitude == 13.405 && abs(endAt.timeIntervalSince(until)) < 0.001)
                #expect(sent.movedLocation == nil, "a location just shared has not moved")

                let moved = try await ann.updateLiveLocation(sent.id, latitude: 52.53, longitude: 13.41)
                #expect(moved.latitude == 52.53 && moved.longitude == 13.41 && moved.endAt == shared.endAt)
                let (movedAt, sharedAt) = (try #require(moved.updatedAt), try #require(shared.updatedAt))
                #expect(movedAt > sharedAt)
                try await collector.wait { $0.contains { $0.type == .messageUpdated } }
                let update = try #require(collector.events.first { $0.type == .messageUpdated }?.message)
                #expect(update.updatedAt == sent.updatedAt, "a move is not an edit of the message")
                #expect(update.movedLocation?.latitude == 52.53 && update.movedLocation?.isStopped == false)
                #expect(try await admin.getMessage(sent.id).sharedLocation?.longitude == 13.41)

                let live = try await admin.liveLocations(of: "ann")
                #expect(live.map(\.messageId) == [sent.id] && live.first?.latitude == 52.53)
                #expect(try await ann.liveLocations().count == 1, "a user token reads its own")
                #expect(try await admin.liveLocations(of: "coach").isEmpty)

                let edited = try await ann.partialUpdateMessage(sent.id, set: ["text": "ride"])
                #expect(edited.movedLocation == nil && edited.sharedLocation?.latitude == 52.53, "an edit keeps the location and is no move")

                let stopped = try await ann.stopLiveLocation(sent.id)
                #expect(stopped.isStopped && !stopped.isShared(at: Date().addingTimeInterval(1)))
                try await collector.wait { $0.filter { $0.type == .messageUpdated }.count == 3 }
                #expect(collector.events.last { $0.type == .messageUpdated }?.message?.movedLocation?.isStopped == true)
                #expect(try await admin.liveLocations(of: "ann").isEmpty, "a stopped location is no longer live")
                await expectRefused(4, "live location sharing of message \(sent.id) ended at") {
                    try await ann.updateLiveLocation(sent.id, latitude: 1, longitude: 1)
                }
            }
        }
    }

    @Test("bad shares and updates are refused and change nothing")
    func refusals() async throws {
        try await TestChatServer.withServer { server in
            let admin = server.client(as: "admin")
            try await admin.upsertUsers([User(id: "ann"), User(id: "bob")])
            for user in ["ann", "bob"] { try await admin.join("messaging:club", as: user) }
            let ann = server.userClient("ann")
            let channel = ann.channel("messaging:club")
            let before = try await admin.queryChannel("messaging:club", messageLimit: 10).messages.count
            await expectRefused(4, "shared_location.latitude must be a number of degrees from -90 to 90, not 91") {
                try await channel.shareLocation(latitude: 91, longitude: 0)
            }
            await expectRefused(4, "shared_location.longitude must be a number of degrees from -180 to 180") {
                try await channel.shareLocation(latitude: 0, longitude: -181)
            }
            await expectRefused(4, "shared_location.end_at must be in the future for a live location") {
                try await channel.shareLocation(latitude: 1, longitude: 1, until: Date().addingTimeInterval(-60))
            }
            // A shared_location of any other shape is the server's to refuse (test_sdk_locations.py); the client
            // refuses one smuggled in as a custom field before sending.
            await #expect {
                try await ann.sendMessage(OutgoingMessage(text: "here", extraData: ["shared_location": "berlin"]), to: "messaging:club")
            } throws: { ($0 as? ChatClientError)?.code == .invalidRequest && "\($0)".contains("custom field shared_location is a name the server uses") }
            #expect(try await admin.queryChannel("messaging:club", messageLimit: 10).messages.count == before, "nothing was sent")

            let live = try await channel.shareLocation(latitude: 1, longitude: 2, until: Date().addingTimeInterval(600))
            let fixed = try await channel.shareLocation(latitude: 3, longitude: 4)
            #expect(fixed.sharedLocation?.isLive == false && fixed.sharedLocation?.endAt == nil)
            let plain = try await channel.sendMessage(text: "no location")
            await expectRefused(17, "user bob may only update their own live locations") {
                try await admin.updateLiveLocation(live.id, latitude: 5, longitude: 5, as: "bob")
            }
            await expectRefused(4, "the location of message \(fixed.id) is static; only a live location can be updated") {
                try await ann.updateLiveLocation(fixed.id, latitude: 5, longitude: 5)
            }
            await expectRefused(4, "message \(plain.id) has no shared location") { try await ann.updateLiveLocation(plain.id, latitude: 5) }
            await expectRefused(16, "nope") { try await ann.updateLiveLocation("nope", latitude: 5) }
            await expectRefused(4, "nothing to update: give latitude, longitude or end_at") { try await ann.updateLiveLocation(live.id) }
            await expectRefused(4, "latitude must be a number of degrees from -90 to 90, not -90.5") {
                try await ann.updateLiveLocation(live.id, latitude: -90.5)
            }
            await expectRefused(4, "either user or user_id must be provided") { try await server.client(as: "admin").liveLocations(of: "") }
            #expect(try await admin.getMessage(live.id).sharedLocation?.latitude == 1, "no refused update moved it")

            try await ann.deleteMessage(live.id)
            await expectRefused(4, "message \(live.id) is deleted") { try await ann.updateLiveLocation(live.id, latitude: 5) }
            #expect(try await admin.liveLocations(of: "ann").isEmpty, "a deleted message's location is not live")
            try await admin.deleteMessage(fixed.id, hard: true)
            #expect(try await server.client(as: "admin").getMessage(plain.id).sharedLocation == nil)
        }
    }
}
