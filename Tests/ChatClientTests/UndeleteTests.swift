import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("Undeleting messages against the dev server")
struct UndeleteTests {
    @Test("undeleting gives a soft-deleted message back its type, text and attachments, and the channel hears message.undeleted")
    func undeleteLifecycle() async throws {
        try await TestChatServer.withServer { server in
            let ann = server.userClient("ann")
            let moderator = server.client(as: "mod")
            try await moderator.upsertUsers([User(id: "mod", name: "Mod")])
            try await moderator.join("messaging:club", as: "ann")
            try await moderator.join("messaging:club", as: "mod")
            try await withEventConnection(moderator, user: "mod") { connection, collector in
                try await connection.watch("messaging:club")
                let file = FileAttachmentPayload(title: "plan.csv", assetURL: URL(string: "https://example.com/plan.csv")!)
                let plan = try await ann.channel("messaging:club").sendMessage(
                    text: "training plan", attachments: [AnyAttachmentPayload(payload: file)], extraData: ["week": 3])
                let reply = try await ann.sendMessage(OutgoingMessage(text: "see the plan", parentId: plan.id), to: "messaging:club")
                _ = try await ann.deleteMessage(plan.id)
                _ = try await ann.deleteMessage(reply.id)
                let deleted = try await ann.getMessage(plan.id)
                #expect(deleted.type == .deleted && deleted.deletedAt != nil)
                #expect(try await ann.queryChannel("messaging:club").messages.map(\.type) == [.deleted])

                let restored = try await moderator.undeleteMessage(plan.id)
                #expect(restored.type == .regular && restored.deletedAt == nil)
                #expect(restored.text == "training plan" && restored.extraData["week"] == 3)
                #expect(restored.attachments.map(\.type) == [.file] && restored.user?.id == "ann", "the author stays the author")
                #expect(try await ann.getMessage(plan.id).type == .regular)
                #expect(try await ann.queryChannel("messaging:club").messages.map(\.text) == ["training plan"])
                let restoredReply = try await moderator.undeleteMessage(reply.id, by: "mod")
                #expect(restoredReply.type == .reply && restoredReply.parentId == plan.id)
                #expect(try await ann.replies(to: plan.id).map(\.text) == ["see the plan"])

                try await collector.wait { $0.filter { $0.type == .messageUndeleted }.count == 2 }
                let event = try #require(collector.events.first { $0.type == .messageUndeleted })
                #expect(event.cid == "messaging:club" && event.message?.id == plan.id && event.message?.type == .regular)
                #expect(event.user?.id == "mod" && event.user?.name == "Mod", "the event names who restored it")

                // A system message (the notice of a truncation) comes back as one.
                _ = try await moderator.truncateChannel("messaging:club", notice: "history cleared", as: "mod")
                let notice = try #require(try await ann.queryChannel("messaging:club").messages.last)
                #expect(notice.type == .system)
                _ = try await moderator.deleteMessage(notice.id)
                #expect(try await moderator.undeleteMessage(notice.id).type == .system)
            }
        }
    }

    @Test("bad undeletes are refused with what is wrong, and leave the message as it was")
    func badUndeletes() async throws {
        try await TestChatServer.withServer { server in
            let ann = server.userClient("ann")
            let moderator = server.client(as: "mod")
            try await moderator.join("messaging:club", as: "ann")
            let kept = try await ann.channel("messaging:club").sendMessage(text: "still here")
            let gone = try await ann.channel("messaging:club").sendMessage(text: "gone for good")
            let removed = try await ann.channel("messaging:club").sendMessage(text: "removed")
            _ = try await ann.deleteMessage(gone.id, hard: true)
            _ = try await ann.deleteMessage(removed.id)

            await expectRefused(17, "messages can only be undeleted with a server token") { try await ann.undeleteMessage(removed.id) }
            await expectRefused(4, "undeleted_by names user nobody, who does not exist") {
                try await moderator.undeleteMessage(removed.id, by: "nobody")
            }
            await expectRefused(4, "message \(kept.id) is not deleted, so there is nothing to undelete") {
                try await moderator.undeleteMessage(kept.id)
            }
            await expectRefused(16, "message with id \(gone.id) does not exist") { try await moderator.undeleteMessage(gone.id) }
            await expectRefused(16, "message with id missing does not exist") { try await moderator.undeleteMessage("missing") }
            let unnamed = ChatClient(
                configuration: ChatClientConfiguration(apiKey: server.apiKey, baseURL: server.baseURL, credentials: .apiSecret(server.apiSecret)))
            await #expect(throws: ChatClientError.self, "an acting user is needed before anything is sent") {
                try await unnamed.undeleteMessage(removed.id)
            }
            let stillDeleted = try await moderator.getMessage(removed.id)
            #expect(stillDeleted.type == .deleted && stillDeleted.text == "removed", "nothing refused restored it")
            #expect(try await moderator.getMessage(kept.id).type == .regular)

            // A message the truncation took stays gone with it.
            _ = try await moderator.truncateChannel("messaging:club", as: "mod")
            let truncated = try await moderator.getMessage(kept.id)
            #expect(truncated.type == .deleted)
            await expectRefused(4, "was removed when channel messaging:club was truncated at") {
                try await moderator.undeleteMessage(kept.id)
            }
            await expectRefused(4, "truncated messages cannot be undeleted") { try await moderator.undeleteMessage(removed.id) }
            #expect(try await moderator.getMessage(kept.id).type == .deleted)
        }
    }
}
