import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("Message search against the dev server")
struct SearchTests {
    /// What the searches below see: ann and bob in messaging:club, ann alone in messaging:other.
    struct Sent {
        let parkRun: Message
        let walk: Message
        let runAgain: Message
        let elsewhere: Message
    }

    static func send(_ server: TestChatServer) async throws -> Sent {
        let ann = server.client(as: "ann")
        let bob = server.client(as: "bob")
        try await ann.join("messaging:club", as: "ann")
        try await bob.join("messaging:club", as: "bob")
        try await ann.join("messaging:other", as: "ann")
        let club = ann.channel("messaging:club")
        let parkRun = try await club.sendMessage(
            text: "Morning RUN in the park", attachments: [AnyAttachmentPayload(json: ["type": "image", "image_url": "https://example.com/park.png"])])
        let walk = try await bob.channel("messaging:club").sendMessage(
            text: "evening walk", attachments: [AnyAttachmentPayload(json: ["type": "file", "asset_url": "https://example.com/route.pdf"])],
            extraData: ["priority": 2])
        let runAgain = try await club.sendMessage(text: "run again, running late", extraData: ["priority": 1])
        let elsewhere = try await ann.channel("messaging:other").sendMessage(text: "a run elsewhere")
        let deleted = try await bob.channel("messaging:club").sendMessage(text: "a run I take back")
        try await bob.deleteMessage(deleted.id)
        return Sent(parkRun: parkRun, walk: walk, runAgain: runAgain, elsewhere: elsewhere)
    }

    @Test("finds messages by words, attachment types, authors, custom fields and dates, in the channels asked for, sorted and paged")
    func search() async throws {
        try await TestChatServer.withServer { server in
            let sent = try await Self.send(server)
            let client = server.client(as: "ann")
            func ids(_ query: MessageSearchQuery, in cid: ChannelId = "messaging:club", sort: [(field: String, direction: Int)] = [])
                async throws -> [String]
            {
                try await client.searchMessages(query, in: cid, sort: sort).messages.map(\.id)
            }
            // Whole words in any case; deleted messages and other channels are not searched.
            #expect(try await ids(.text("run")) == [sent.parkRun.id, sent.runAgain.id])
            #expect(try await ids(.text("park run")) == [sent.parkRun.id])
            #expect(try await ids(.text("swim")) == [])
            #expect(try await ids(.text("runn")) == [], "a query word matches whole words; $autocomplete matches their starts")
            #expect(try await ids(.filter(["text": ["$autocomplete": "runn"]])) == [sent.runAgain.id])
            #expect(try await ids(.attachments(of: .image)) == [sent.parkRun.id])
            #expect(try await ids(.attachments(of: .image, .file)) == [sent.parkRun.id, sent.walk.id])
            #expect(try await ids(.filter(["attachments": ["$exists": false]])) == [sent.runAgain.id])
            #expect(try await ids(.filter(["user.id": "bob"])) == [sent.walk.id])
            #expect(try await ids(.filter(["priority": ["$gte": 2]])) == [sent.walk.id])
            #expect(try await ids(.filter(["$or": [["priority": 1], ["user.id": "bob"]]])) == [sent.walk.id, sent.runAgain.id])
            let after = try #require(sent.parkRun.createdAt)
            #expect(try await ids(.filter(["created_at": ["$gt": .string(RFC3339.string(from: after))]])) == [sent.walk.id, sent.runAgain.id])
            #expect(try await ids(.text("run"), sort: [("created_at", -1)]) == [sent.runAgain.id, sent.parkRun.id])

            // A channel filter spanning channels; each result says its channel.
            let mine: JSONObject = ["members": ["$in": ["ann"]]]
            let everywhere = try await client.searchMessages(.text("run"), inChannels: mine)
            #expect(everywhere.messages.map(\.id) == [sent.parkRun.id, sent.runAgain.id, sent.elsewhere.id])
            #expect(everywhere.messages.map(\.cid) == ["messaging:club", "messaging:club", "messaging:other"])
            #expect(everywhere.next == nil)

            // Paged one at a time by the cursor, to the last page.
            var pages: [[String]] = []
            var next: String?
            repeat {
                let page = try await client.searchMessages(.text("run"), inChannels: mine, limit: 1, after: next)
                pages.append(page.messages.map(\.id))
                next = page.next
            } while next != nil && pages.count < 10
            #expect(pages == [[sent.parkRun.id], [sent.runAgain.id], [sent.elsewhere.id]])
        }
    }

    @Test("a user token searches only the channels its user is a member of")
    func userTokenSeesOnlyItsChannels() async throws {
        try await TestChatServer.withServer { server in
            let sent = try await Self.send(server)
            let token = TokenSigner(secret: server.apiSecret).userToken(for: "bob")
            let bob = server.client(as: "bob") { $0.credentials = .userToken(token) }
            let found = try await bob.searchMessages(.text("run"), inChannels: ["members": ["$in": ["ann", "bob"]]])
            #expect(found.messages.map(\.id) == [sent.parkRun.id, sent.runAgain.id], "bob is not in messaging:other")
        }
    }

    @Test("bad searches get a clear error and change nothing")
    func badSearches() async throws {
        try await TestChatServer.withServer { server in
            let sent = try await Self.send(server)
            let client = server.client(as: "ann")
            // Refused before anything is sent.
            await #expect {
                try await client.searchMessages(.text("run"), inChannels: [:])
            } throws: { ($0 as? ChatClientError)?.code == .invalidRequest && "\($0)".contains("needs a channel filter") }
            await #expect {
                try await client.searchMessages(.text("run"), in: "messaging:club", limit: 0)
            } throws: { ($0 as? ChatClientError)?.code == .invalidRequest && "\($0)".contains("limit must be 1 to 100") }

            // Refused by the server: 400, code 4, saying what is wrong.
            let refused: [(query: MessageSearchQuery, channels: JSONObject, sort: [(field: String, direction: Int)], next: String?, says: String)] = [
                (.text("  ,  "), ["cid": "messaging:club"], [], nil, "query must contain at least one word"),
                (.filter([:]), ["cid": "messaging:club"], [], nil, "message_filter_conditions must be a non-empty object"),
                (.filter(["text": ["$regex": "r.*"]]), ["cid": "messaging:club"], [], nil, "operator $regex on text is not supported"),
                (.filter(["reply_count": 1]), ["cid": "messaging:club"], [], nil, "filter field \"reply_count\" is not supported"),
                (.filter(["user.id": ["$q": "bob"]]), ["cid": "messaging:club"], [], nil, "$q can only be used on text"),
                (.filter(["created_at": ["$gt": "yesterday"]]), ["cid": "messaging:club"], [], nil, "needs an RFC 3339 date"),
                (.filter(["attachments": "image"]), ["cid": "messaging:club"], [], nil, "attachments can only be filtered with $exists"),
                (.filter(["$or": []]), ["cid": "messaging:club"], [], nil, "$or must be a non-empty array of filters"),
                (.text("run"), ["name": "club"], [], nil, "filter field \"name\" is not supported"),
                (.text("run"), ["cid": "messaging:club"], [("text", 1)], nil, "sort field \"text\" is not supported"),
                (.text("run"), ["cid": "messaging:club"], [], "not-a-cursor", "next must be the next or previous value"),
            ]
            for bad in refused {
                await #expect("\(bad.says)") {
                    try await client.searchMessages(bad.query, inChannels: bad.channels, sort: bad.sort, after: bad.next)
                } throws: { error in
                    guard let error = error as? ChatClientError else { return false }
                    return error.streamCode == 4 && error.httpStatus == 400 && error.message.contains(bad.says)
                }
            }
            // Nothing was lost: the messages are all still there.
            let all = try await client.searchMessages(.filter(["id": ["$in": [.string(sent.parkRun.id), .string(sent.walk.id)]]]), in: "messaging:club")
            #expect(all.messages.map(\.id) == [sent.parkRun.id, sent.walk.id])
        }
    }
}
