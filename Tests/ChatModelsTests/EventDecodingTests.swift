import ChatModels
import Foundation
import Testing

@Suite("Events and messages")
struct EventDecodingTests {
    @Test("the real message.new event decodes with every field the bot needs")
    func messageNew() throws {
        let event = try Event(jsonData: try Fixture.data("message-new.json"))
        #expect(event.type == .messageNew)
        #expect(event.cid == ChannelId(type: .messaging, id: "9214bd91-4c6a-4f0e-9d6b-1e64ad1d2a61"))
        #expect(event.createdAt.map(RFC3339.string(from:)) == "2026-06-24T11:44:49.460717Z")
        let message = try #require(event.message)
        #expect(message.id == "60660f7a-34eb-4d81-8364-a58178c4d9b7")
        #expect(message.text == "Test")
        #expect(message.html == "<p>Test</p>\n")
        #expect(message.type == .regular)
        #expect(message.cid == event.cid)
        #expect(message.replyCount == 0)
        #expect(message.isPinned == false)
        #expect(message.attachments.isEmpty)
        #expect(message.user?.id == "luke_skywalker")
        #expect(message.user?.name == "Luke Skywalker")
        #expect(message.user?.imageURL?.host == "vignette.wikia.nocookie.net")
        #expect(message.user?.isOnline == true)
        #expect(message.user?.extraData["birthland"] == "Tatooine")
        #expect(message.serverFields["member"]?["channel_role"] == "channel_member")
        #expect(message.extraData.isEmpty, "server fields are not custom data")
        #expect(event.user?.id == "luke_skywalker")
        #expect(event.extraData["channel_custom"]?["name"] == "Sync Mock Server")
        #expect(event.extraData["watcher_count"] == 1)
    }

    @Test("the first health.check carries the connection id and me; cid * is no channel")
    func healthCheck() throws {
        let event = try Event(jsonData: try Fixture.data("health-check.json"))
        #expect(event.type == .healthCheck)
        #expect(event.connectionId == "6a2fea53-0a15-1922-0200-00000000048f")
        #expect(event.cid == nil)
        #expect(event.me?.id == "luke_skywalker")
        #expect(event.me?.extraData["language"] == "zh")
    }

    @Test("connection.error carries the Stream error")
    func connectionError() throws {
        let event = try Event(jsonData: try Fixture.data("connection-error.json"))
        #expect(event.type == .connectionError)
        #expect(event.error?.code == 40)
        #expect(event.error?.statusCode == 401)
        #expect(event.error?.message == "JWTAuth error")
    }

    @Test("an unknown event type is kept whole, even when it reuses a known field name differently")
    func unknownEventType() throws {
        let text = #"{"type":"poll.vote_casted","cid":"messaging:general","message":"not a message object","poll":{"id":"p1","votes":3}}"#
        let event = try Event(jsonData: Data(text.utf8))
        #expect(event.type.rawValue == "poll.vote_casted")
        #expect(event.cid == "messaging:general")
        #expect(event.message == nil)
        #expect(event.extraData["message"] == "not a message object")
        #expect(event.extraData["poll"]?["votes"] == 3)
        #expect(String(decoding: event.rawData, as: UTF8.self) == text)

        // The type may come last: what was read before it is judged by it all the same.
        let typeLast = try Event(jsonData: Data(#"{"message":"not a message object","cid":"messaging:general","type":"poll.vote_casted"}"#.utf8))
        #expect(typeLast.type.rawValue == "poll.vote_casted" && typeLast.message == nil && typeLast.cid == "messaging:general")
        #expect(typeLast.extraData["message"] == "not a message object")

        // A `cid` that is not a channel id stays in extraData, even when the channel supplies one.
        let odd = #"{"type":"custom.thing","cid":42,"channel":{"id":"x","type":"messaging","cid":"messaging:x"}}"#
        let oddEvent = try Event(jsonData: Data(odd.utf8))
        #expect(oddEvent.cid == "messaging:x")
        #expect(oddEvent.extraData["cid"] == 42)
    }

    @Test("a known event with a wrongly typed field fails with the field's path, wherever its type is", arguments: [
        #"{"type":"message.new","cid":"messaging:general","message":{"id":"m1","text":5}}"#,
        #"{"cid":"messaging:general","message":{"id":"m1","text":5},"type":"message.new"}"#,
        #"{"message":{"id":"m1","text":5},"created_at":"yesterday","type":"message.new"}"#,
    ])
    func wrongFieldType(text: String) throws {
        #expect {
            _ = try Event(jsonData: Data(text.utf8))
        } throws: { error in
            guard let error = error as? JSONError else { return false }
            return error.code == .typeMismatch && error.path == "message.text" && error.message == "expected a string, found number 5"
        }
    }

    @Test("timestamps and channel ids an event repeats are read once each, and ones that differ stay apart")
    func repeatedValues() throws {
        let text = #"""
            {"type":"message.new","cid":"messaging:a","created_at":"2026-11-01T00:14:49.394479Z",
             "message":{"id":"m1","cid":"messaging:b","created_at":"2026-11-01T00:14:49.394479Z","updated_at":"2026-11-01T00:14:49.39447Z",
              "user":{"id":"u1","created_at":"2024-04-04T09:26:11Z","updated_at":"2024-04-04T09:26:12Z","last_active":"2026-11-01T00:14:49.394479Z"}},
             "user":{"id":"u1","created_at":"2024-04-04T09:26:12Z","updated_at":"2024-04-04T09:26:11Z"}}
            """#
        let event = try Event(jsonData: Data(text.utf8))
        let message = try #require(event.message)
        #expect(event.cid == "messaging:a" && message.cid == "messaging:b")
        let time = try #require(RFC3339.date(from: "2026-11-01T00:14:49.394479Z"))
        #expect(event.createdAt == time && message.createdAt == time && message.user?.lastActiveAt == time)
        #expect(message.updatedAt == RFC3339.date(from: "2026-11-01T00:14:49.39447Z") && message.updatedAt != time)
        let (earlier, later) = (RFC3339.date(from: "2024-04-04T09:26:11Z"), RFC3339.date(from: "2024-04-04T09:26:12Z"))
        #expect(message.user?.createdAt == earlier && message.user?.updatedAt == later)
        #expect(event.user?.createdAt == later && event.user?.updatedAt == earlier)
    }

    @Test("events without type, non-object events and bad JSON are errors, never crashes")
    func badEvents() {
        for text in [#"{"cid":"messaging:x"}"#, "[1,2]", "\"health.check\"", "{not json", #"{"type":7}"#] {
            #expect(throws: JSONError.self) { try Event(jsonData: Data(text.utf8)) }
        }
    }

    @Test("a bad escape is refused at its byte wherever it is, also in fields no reader looks at", arguments: [
        // (event, the escape, its offending byte within the escape, message)
        (#"{"type":"message.new","message":{"id":"m1","note":"bad \q here"}}"#, #"\q"#, 1, #"invalid escape sequence \'q'"#),
        (#"{"type":"message.new","team_note":"\u12g4","message":{"id":"m1"}}"#, #"\u12g4"#, 4, #"invalid hex digit 'g' in a \u escape"#),
        (#"{"type":"message.new","message":{"id":"m1","user":{"id":"u1","club":"\x"}}}"#, #"\x"#, 1, #"invalid escape sequence \'x'"#),
        (#"{"type":"message.new","message":{"id":"m1","attachments":[{"type":"workout","workout-type":"r\qn"}]}}"#, #"\q"#, 1,
         #"invalid escape sequence \'q'"#),
        (#"{"type":"message.new","bad\qkey":1,"message":{"id":"m1"}}"#, #"\q"#, 1, #"invalid escape sequence \'q'"#),
    ])
    func badEscapeInUnreadField(event: String, escape: String, within: Int, message: String) throws {
        // Before, only strings that were read had their escapes checked: these events decoded, and
        // the custom fields or attachment carrying the bad escape silently came back empty.
        let escapeStart = try #require(event.range(of: escape)).lowerBound
        let offset = event.utf8.distance(from: event.utf8.startIndex, to: escapeStart) + within
        #expect {
            _ = try Event.decode(frame: Data(event.utf8))
        } throws: { error in
            guard let error = error as? JSONError else { return false }
            return error.code == .syntax && error.offset == offset && error.message == message
        }
        #expect(throws: JSONError.self) { try JSONParser().parse(event) }
    }

    @Test("an event whose text is not UTF-8 is refused with the byte's offset, not decoded with replacement characters")
    func invalidUTF8Event() throws {
        var frame = Data(#"{"type":"message.new","cid":"messaging:general","message":{"id":"m1","text":"caf?"}}"#.utf8)
        let position = try #require(frame.firstIndex(of: UInt8(ascii: "?")))
        frame[position] = 0xE9  // "é" in Latin-1
        #expect {
            _ = try Event.decode(frame: frame)
        } throws: { error in
            guard let error = error as? JSONError else { return false }
            return error.code == .invalidUTF8 && error.offset == position && error.message == "byte 0xE9 inside a string does not start a valid UTF-8 sequence"
        }
    }

    @Test("reaction, member, deleted and notification events decode their payloads")
    func otherEvents() throws {
        let reaction = try Event(
            jsonData: Data(
                #"{"type":"reaction.new","cid":"messaging:general","reaction":{"type":"like","score":1,"message_id":"m1","user_id":"u1","created_at":"2026-06-24T11:44:49Z","emoji":"👍"},"message":{"id":"m1","reaction_counts":{"like":1},"reaction_scores":{"like":1}}}"#
                    .utf8))
        #expect(reaction.reaction?.type == "like")
        #expect(reaction.reaction?.extraData["emoji"] == "👍")
        #expect(reaction.message?.reactionCounts == ["like": 1])

        let member = try Event(
            jsonData: Data(#"{"type":"member.added","cid":"messaging:general","member":{"user_id":"bot","channel_role":"channel_member"}}"#.utf8))
        #expect(member.member?.userId == "bot")

        let deleted = try Event(
            jsonData: Data(#"{"type":"message.deleted","cid":"messaging:general","hard_delete":true,"message":{"id":"m1","type":"deleted"}}"#.utf8))
        #expect(deleted.hardDelete == true)
        #expect(deleted.message?.type == .deleted)

        let notification = try Event(
            jsonData: Data(
                #"{"type":"notification.message_new","channel":{"id":"general","type":"messaging","cid":"messaging:general","config":{"reactions":true}},"message":{"id":"m2","text":"hi"}}"#
                    .utf8))
        #expect(notification.type.carriesNewMessage)
        #expect(notification.cid == "messaging:general")
        #expect(notification.channel?.config?["reactions"] == true)
    }

    @Test("keys are matched wherever they sit: in a document's last bytes, shorter and longer than eight bytes, sharing their first eight")
    func keysAnywhere() throws {
        // Keys are compared eight bytes at a time, read past the key when the document allows it.
        let shortest = try Message(jsonData: Data(#"{"text":"hi","id":""}"#.utf8))
        #expect(shortest.id == "")
        #expect(shortest.text == "hi")
        #expect(try User(jsonData: Data(#"{"id":"u"}"#.utf8)).id == "u")
        let message = try Message(
            jsonData: Data(
                #"{"id":"m1","reaction_scores":{"like":5},"reaction_counts":{"like":2},"reaction_colors":"red","quoted_message_id":"m0","pinned":true}"#
                    .utf8))
        #expect(message.reactionScores == ["like": 5])
        #expect(message.reactionCounts == ["like": 2])
        #expect(message.quotedMessageId == "m0")
        #expect(message.isPinned == true)
        // Same length and first eight bytes as two known keys, but a custom field.
        #expect(message.extraData["reaction_colors"] == "red")
    }

    @Test("users nested in messages, reactions, members and channels: null is no user, a missing id or a wrong field is an error naming it")
    func nestedUsers() throws {
        let message = try Message(jsonData: Data(#"{"id":"m1","user":null,"latest_reactions":[{"type":"like","user":null}]}"#.utf8))
        #expect(message.user == nil)
        #expect(message.latestReactions.first?.user == nil)

        let event = try Event(
            jsonData: Data(
                #"{"type":"member.added","cid":"messaging:general","channel":{"cid":"messaging:general","created_by":{"id":"owner","banned":false,"team":"red"}},"member":{"user":{"id":"bot","online":true}},"user":{"id":"u1","last_active":"2026-06-24T11:44:49Z"}}"#
                    .utf8))
        #expect(event.channel?.createdBy?.id == "owner")
        #expect(event.channel?.createdBy?.isBanned == false)
        #expect(event.channel?.createdBy?.extraData == ["team": "red"])
        #expect(event.member?.userId == "bot")
        #expect(event.member?.user?.isOnline == true)
        #expect(event.user?.lastActiveAt.map(RFC3339.string(from:)) == "2026-06-24T11:44:49.000000Z")

        let bad: [(String, String, String)] = [
            (#"{"type":"message.new","message":{"id":"m1","user":{"name":"no id"}}}"#, "message.user.id", "missing"),
            (#"{"type":"message.new","message":{"id":"m1","user":{"id":"u1","online":"yes"}}}"#, "message.user.online", "a boolean"),
            (#"{"type":"reaction.new","reaction":{"type":"like","user":{"id":7}}}"#, "reaction.user.id", "a string"),
            (#"{"type":"message.new","message":{"id":"m1","user":[]}}"#, "message.user", "an object"),
        ]
        for (text, path, reason) in bad {
            #expect {
                _ = try Event(jsonData: Data(text.utf8))
            } throws: { error in
                guard let error = error as? JSONError else { return false }
                return error.path == path && error.message.contains(reason)
            }
        }
    }

    @Test("mentions are accepted as user objects or as bare ids")
    func mentions() throws {
        let message = try Message(jsonData: Data(#"{"id":"m1","mentioned_users":["alice",{"id":"bob","name":"Bob"}]}"#.utf8))
        #expect(message.mentionedUsers.map(\.id) == ["alice", "bob"])
    }

    @Test("channel ids parse type:id and refuse malformed ones")
    func channelIds() throws {
        let cid = try ChannelId(cid: "messaging:general")
        #expect(cid.type == .messaging && cid.id == "general" && cid.description == "messaging:general")
        for bad in ["general", ":x", "messaging:", "a:b c", "a:b/c"] {
            #expect(throws: JSONError.self) { try ChannelId(cid: bad) }
        }
    }
}
