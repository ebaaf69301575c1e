import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("EventCapture and ReplayPlan: a recorded channel done again, call by call")
struct ReplayTests {
    /// A capture as `bots events --json` writes it, with what a replay must leave out. Its
    /// texts hold no link: the dev server would fetch it for a preview, and tests stay on loopback.
    static let capture = [
        #"{"type":"message.new","cid":"messaging:gym","created_at":"2026-11-20T10:00:00Z","message":{"id":"m1","text":"run","type":"regular","user":{"id":"ann","name":"Ann","team":"red"},"mood":"great","attachments":[{"type":"workout","workout-distance-meters":5000},{"type":"video","og_scrape_url":"https://example.com","title":"Example"}]}}"#,
        #"{"type":"notification.message_new","cid":"messaging:gym","message":{"id":"m1","text":"run","type":"regular","user":{"id":"ann"}}}"#,
        #"{"type":"message.new","cid":"messaging:gym","message":{"id":"b1","text":"This week: 5 km","type":"regular","user":{"id":"coach-bot"}}}"#,
        #"{"type":"reaction.new","cid":"messaging:gym","created_at":"2026-11-20T10:00:02Z","message":{"id":"m1"},"reaction":{"type":"like","score":1,"message_id":"m1","user_id":"bo","user":{"id":"bo","name":"Bo"}}}"#,
        #"{"type":"reaction.new","cid":"messaging:gym","reaction":{"type":"like","message_id":"b1","user_id":"bo"}}"#,
        #"{"type":"message.new","cid":"messaging:gym","message":{"id":"r1","text":"nice @cy","type":"reply","parent_id":"m1","user":{"id":"bo"},"mentioned_users":[{"id":"cy","name":"Cy"}]}}"#,
        #"{"type":"message.new","cid":"messaging:gym","message":{"id":"r2","text":"old thread","type":"reply","parent_id":"before","user":{"id":"bo"}}}"#,
        #"{"type":"message.updated","cid":"messaging:gym","message":{"id":"m1","text":"run, 6 km","type":"regular","user":{"id":"ann"},"mood":"great","attachments":[{"type":"workout","workout-distance-meters":6000}]}}"#,
        #"{"type":"message.updated","cid":"messaging:gym","message":{"id":"elsewhere","text":"x","user":{"id":"ann"}}}"#,
        #"{"type":"typing.start","cid":"messaging:gym","user":{"id":"ann"}}"#,
        "",
        #"{"type":"message.deleted","cid":"messaging:gym","hard_delete":true,"message":{"id":"r1","type":"deleted","user":{"id":"bo"}}}"#,
    ].joined(separator: "\n")

    @Test("the plan sends, reacts, edits and deletes in order, as each user; it leaves out bots, copies, previews and strangers, saying why")
    func plan() throws {
        let plan = ReplayPlan(try EventCapture(text: Self.capture), skippingUsers: ["coach-bot"])
        #expect(plan.steps.map(\.line) == [1, 4, 6, 7, 8, 12])
        #expect(plan.steps.map(\.action.messageId) == ["m1", "m1", "r1", "r2", "m1", "r1"])
        #expect(plan.steps.map(\.userId) == ["ann", "bo", "bo", "bo", "ann", nil])
        #expect(plan.users.map(\.id) == ["ann", "bo", "cy"], "mentioned users are made too")
        #expect(plan.users.first?.extraData["team"] == "red", "users keep their custom fields")
        #expect(plan.memberships.map { "\($0.cid.rawValue) \($0.userId)" } == ["messaging:gym ann", "messaging:gym bo"])
        guard case .send(let id, let text, let attachments, _, _, _, _, _, let extraData) = plan.steps[0].action else {
            Issue.record("the first step sends m1")
            return
        }
        #expect(id == "m1" && text == "run" && extraData["mood"] == "great")
        #expect(attachments.map { $0["type"]?.stringValue } == ["workout"], "the preview is the server's to make again")
        guard case .send(_, _, _, let parentId, _, _, _, _, _) = plan.steps[2].action,
            case .send(_, _, _, let orphanParent, _, _, _, _, _) = plan.steps[3].action
        else {
            Issue.record("steps 3 and 4 send the replies")
            return
        }
        #expect(parentId == "m1" && orphanParent == nil)
        guard case .delete("r1", hard: true) = plan.steps[5].action else {
            Issue.record("the last step hard-deletes r1")
            return
        }
        #expect(
            plan.skipped.map { "\($0.count) \($0.reason)" } == [
                "1 link previews (the server makes them again from the text)",
                "1 copies of messages already in the replay (notification.message_new beside message.new)",
                "1 messages by coach-bot",
                "1 reactions to messages the replay does not send",
                "1 threads of replies whose parent is not in the capture (sent as channel messages)",
                "1 edits of messages the replay does not send",
                "1 typing.start events",
            ])
        let intoOne = ReplayPlan(try EventCapture(text: Self.capture), channel: "messaging:replayed")
        #expect(Set(intoOne.steps.map(\.cid)) == ["messaging:replayed"])
    }

    @Test(
        "a line that is not an event refuses the whole capture, naming the line",
        arguments: [
            ("{\"type\":\"message.new\"}\n{\"type\":", "c.jsonl:2: not JSON"),
            ("\n\n[1]", "c.jsonl:3: not an event: an event is a JSON object with a \"type\""),
            ("{\"type\":\"\"}", "c.jsonl:1: not an event"),
            ("{\"type\":\"message.new\",\"message\":{\"id\":5}}", "c.jsonl:1: not an event"),
        ])
    func badLines(text: String, expected: String) {
        let error = #expect(throws: ChatClientError.self) { try EventCapture(text: text, source: "c.jsonl") }
        #expect(error?.code == .invalidCapture)
        #expect(error?.message.hasPrefix(expected) == true, "\(error?.message ?? "")")
        #expect(error?.message.hasSuffix("nothing was replayed") == true)
    }

    @Test("a replay on the dev server makes the users and their messages again; one the server refuses (a banned user's) stops it, naming the line")
    func replayOnTheDevServer() async throws {
        try await TestChatServer.withServer { server in
            let client = server.client(as: "replay")
            let plan = ReplayPlan(try EventCapture(text: Self.capture), skippingUsers: ["coach-bot"])
            let done = Recorder<String>()
            try await client.replay(plan, idSuffix: "") { _, id in done.record(id) }
            #expect(done.all == ["m1", "m1", "r1", "r2", "m1", "r1"])
            let m1 = try await client.getMessage("m1")
            #expect(m1.text == "run, 6 km" && m1.user?.id == "ann" && m1.extraData["mood"] == "great")
            #expect(m1.attachments.first?.rawJSON["workout-distance-meters"] == 6000)
            #expect(m1.reactionCounts == ["like": 1])
            #expect(try await client.queryUsers(ids: ["ann"]).first?.extraData["team"] == "red")
            #expect(try await client.queryUsers(ids: ["cy"]).first?.name == "Cy")
            await #expect(throws: ChatClientError.self) { try await client.getMessage("r1") }

            try await client.banUser("ann", in: "messaging:gym", reason: "spam")
            let error = await #expect(throws: ChatClientError.self) { try await client.replay(plan, idSuffix: "banned") }
            #expect(error?.code == .api && error?.httpStatus == 403)
            #expect(error?.message.hasPrefix("line 1 of the capture could not be replayed (0 of 6 calls were): ") == true, "\(error?.message ?? "")")
        }
    }
}
