import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("Message history against the dev server")
struct MessageHistoryTests {
    @Test("each edit keeps the version it replaced: its text, attachments and custom fields, when and by whom it was made")
    func history() async throws {
        try await TestChatServer.withServer { server in
            let ann = server.userClient("ann")
            let moderator = server.client(as: "mod")
            try await moderator.join("messaging:club", as: "ann")
            let file = FileAttachmentPayload(title: "plan.csv", assetURL: URL(string: "https://example.com/plan.csv")!)
            let sent = try await ann.channel("messaging:club").sendMessage(
                text: "plan v1", attachments: [AnyAttachmentPayload(payload: file)], extraData: ["week": 1])
            _ = try await ann.partialUpdateMessage(sent.id, set: ["text": "plan v2", "week": 2])
            _ = try await moderator.partialUpdateMessage(sent.id, set: ["text": "plan v3"], as: "mod")
            let history = try await moderator.messageHistory(of: sent.id)
            #expect(history.map(\.text) == ["plan v1", "plan v2"])
            #expect(history.map(\.madeBy) == ["ann", "ann"], "ann made both; the moderator's edit is the message itself")
            #expect(history.first?.attachments.map(\.type) == [.file] && history.first?.extraData["week"] == 1)
            #expect(history.last?.extraData["week"] == 2)
            await expectRefused(16, "message with id ghost does not exist") { try await moderator.messageHistory(of: "ghost") }
        }
    }
}
