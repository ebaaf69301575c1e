import ChatModels
import Foundation
import Testing

@Suite("Custom fields")
struct CustomFieldsTests {
    @Test("a whole message with custom fields everywhere survives decode → encode JSON-equal")
    func messageRoundTrip() throws {
        let text = #"""
            {"id":"m-1","cid":"messaging:general","text":"hello","html":"<p>hello</p>\n","type":"regular",
             "user":{"id":"u1","name":"Ann","role":"user","created_at":"2024-04-04T09:26:11.805899Z","banned":false,
                     "online":true,"team":"blue","prefs":{"units":"km"}},
             "attachments":[{"type":"workout","workout-type":"run","workout-distance-meters":5000,"note":{"mood":"great"}},
                            {"type":"image","image_url":"https://x/y.png","exif":{"iso":200}},
                            {"sku":"no-type"}],
             "latest_reactions":[{"type":"like","user_id":"u2","score":1,"sparkle":true}],"own_reactions":[],
             "reaction_counts":{"like":1},"reaction_scores":{"like":1},"reply_count":0,
             "created_at":"2026-06-24T11:44:49.394479Z","updated_at":"2026-06-24T11:44:49.394479Z",
             "mentioned_users":[],"shadowed":false,"pinned":false,"pinned_at":null,
             "custom_field":1,"nested":{"deep":[1,{"x":null}]},"big":123456789012345678901234567890,"flag":false}
            """#
        let original = try JSONParser().parse(text)
        let message = try Message(json: original)
        #expect(message.extraData["custom_field"] == 1)
        #expect(message.extraData["nested"]?["deep"]?.arrayValue?.count == 2)
        #expect(message.user?.extraData["prefs"]?["units"] == "km")
        #expect(message.latestReactions.first?.extraData["sparkle"] == true)
        #expect(message.serverFields.keys.sorted() == ["pinned_at", "shadowed"])
        #expect(message.json == original)
        #expect(try Message(json: message.json) == message)
    }

    @Test("custom fields of channels and members survive a round trip")
    func channelRoundTrip() throws {
        let channelJSON: RawJSON = [
            "id": "general", "type": "messaging", "cid": "messaging:general", "name": "General", "frozen": false,
            "config": ["reactions": true, "max_message_length": 5000], "color": "teal", "own_capabilities": ["send-message"],
        ]
        let channel = try Channel(json: channelJSON)
        #expect(channel.extraData["color"] == "teal")
        #expect(channel.name == "General")
        #expect(channel.json == channelJSON)

        let memberJSON: RawJSON = ["user_id": "u1", "channel_role": "channel_member", "nickname": "annie"]
        #expect(try Member(json: memberJSON).json == memberJSON)
    }

    @Test("models work with Foundation's JSONEncoder and JSONDecoder too")
    func foundationCodable() throws {
        let user = User(id: "u1", name: "Ann", extraData: ["team": "blue", "level": 3])
        let data = try JSONEncoder().encode(user)
        let decoded = try JSONDecoder().decode(User.self, from: data)
        #expect(decoded == user)
        #expect(decoded.extraData["level"] == 3)
    }

    @Test("setting extraData replaces the custom fields and is written out")
    func settingExtraData() throws {
        var message = try Message(jsonData: Data(#"{"id":"m1","old":1}"#.utf8))
        message.extraData["new"] = "value"
        #expect(message.extraData == ["old": 1, "new": "value"])
        #expect(message.json["new"] == "value")
        #expect(message.json["old"] == 1)
    }
}
