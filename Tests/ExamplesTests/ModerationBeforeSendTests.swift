import ChatBotKit
import ChatBotKitTesting
import ChatBotKitWebhooks
import ChatClient
import ChatModels
import Foundation
import ModerationBot
import ServiceLifecycle
import Testing

@Suite("Example: the moderation bot with check: before_send", .timeLimit(.minutes(2)))
struct ModerationBeforeSendTests {
    static let policy = ModerationPolicy(
        blockedExtensions: [".exe", ".dll", ".bat", ".sh"], allowedMimeTypes: ["image/*", "application/pdf", "text/csv"],
        maximumFileSize: 25 * 1024 * 1024, sniffContent: true, action: .deleteAndNotify, banAfter: 2, check: .beforeSend)

    /// Runs `body` with the moderator judging the server's messages before they are sent: a
    /// webhook server with its before-send intake, and the app's hook pointed at it.
    static func withModerator(
        _ server: TestChatServer, policy: ModerationPolicy = policy, channels: Set<ChannelId>? = nil,
        _ body: (BeforeSendIntake) async throws -> Void
    ) async throws {
        let bot = try ModerationBot.make(
            name: "moderator", user: User(id: "moderator", name: "Moderator"), policy: policy, beforeSendChannels: channels)
        let intake = BeforeSendIntake(apiKey: server.apiKey, apiSecret: server.apiSecret)
        let moderator = server.client(as: "moderator")
        try await moderator.upsertUsers([bot.user])
        try await moderator.join("messaging:general", as: "moderator")
        intake.register(bot, client: moderator)
        let webhook = WebhookServer(intake: WebhookIntake(apiKey: server.apiKey, apiSecret: server.apiSecret), port: 0, beforeSend: intake)
        try await withRunningServices([webhook]) {
            try await server.client(as: "admin").updateAppSettings(["before_message_send_hook_url": .string(try await webhook.beforeSendURL() ?? "")])
            try await body(intake)
        }
    }

    @Test("the hook asks about every channel of the app: a channel that is not the moderator's is not judged")
    func judgesOnlyItsChannels() async throws {
        let files = try ScratchFolder()
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", name: "Ann", channel: "messaging:general")
            let elsewhere = try await TestUser.join(server, id: "ann", name: "Ann", channel: "messaging:gallery")
            try await Self.withModerator(server, channels: ["messaging:general"]) { _ in
                let notes = try await elsewhere.sendFile(try files.text("hello", named: "notes.txt"))
                #expect(notes.type == .regular, "text/plain is not allowed by the policy, but messaging:gallery is not the moderator's")
                await #expect(throws: ChatClientError.self) { try await ann.sendFile(try files.text("hello", named: "notes.txt")) }
            }
        }
    }

    @Test("an ELF renamed .png is refused before it is stored: the sender reads why, the upload leaves the CDN, the notice counts towards a ban")
    func refusesBeforeStoring() async throws {
        let files = try ScratchFolder()
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", name: "Ann", channel: "messaging:general")
            try await Self.withModerator(server) { _ in
                let photo = try await ann.sendFile(try files.png(named: "cat.png"), as: .image)
                #expect(photo.type == .regular)
                let pdf = try await ann.sendFile(try files.pdf(named: "notes.pdf"))
                #expect(pdf.attachments.count == 1)

                let program = try files.executable(disguisedAs: "holiday.png")
                let upload = try await ann.client.uploadAttachment(localFileURL: program, type: .file, to: "messaging:general")
                let id = UUID().uuidString.lowercased()
                let refusal = await #expect(throws: ChatClientError.self) {
                    try await ann.client.channel("messaging:general").sendMessage(
                        text: "my holiday",
                        attachments: [AnyAttachmentPayload(json: ["type": "file", "asset_url": .string(upload.fileURL.absoluteString), "title": "holiday.png", "mime_type": "image/png"])],
                        id: id)
                }
                #expect(refusal?.code == .messageRefused)
                #expect(refusal?.message.contains("holiday.png was not posted: it is really an executable program") == true, "\(String(describing: refusal))")
                await #expect(throws: ChatClientError.self) { _ = try await ann.client.getMessage(id) }

                // After the answer: the notice (with what ban_after counts), and the upload gone.
                let notice = try #require(try await ann.replies(to: pdf, from: "moderator").first)
                #expect(notice.text.hasPrefix("@Ann: holiday.png was not posted because it is really an executable program"), "\(notice.text)")
                #expect(notice.extraData["moderation_notice"]?["message_id"]?.stringValue == id)
                let reader = server.client(as: "ann")
                let orphan = AnyChatMessageAttachment(
                    id: AttachmentId(cid: "messaging:general", messageId: id, index: 0), json: ["type": "file", "asset_url": .string(upload.fileURL.absoluteString)])
                try await waitUntilGone(orphan, reader)

                // The second bans her (ban_after: 2); her messages are refused by the service from then on.
                let again = try await ann.client.uploadAttachment(localFileURL: program, type: .file, to: "messaging:general")
                await #expect(throws: ChatClientError.self) {
                    try await ann.send(text: "again", attachments: [AnyAttachmentPayload(json: ["type": "file", "asset_url": .string(again.fileURL.absoluteString), "title": "again.png"])])
                }
                let banned = try await ann.replies(to: notice, from: "moderator").first
                #expect(banned?.text.hasSuffix("That is 2 files against the policy, so Ann is banned from this channel until a moderator lifts the ban.") == true, "\(banned?.text ?? "-")")
                let messages = try await server.client(as: "admin").queryChannel("messaging:general", messageLimit: 50).messages
                #expect(!messages.contains { $0.text == "my holiday" || $0.text == "again" })
            }
        }
    }

    @Test("a file link that 404s is refused; a trusted or unjudged channel passes; a 30 MB file is judged by its head and refused for its size")
    func headsAndMissingFiles() async throws {
        let files = try ScratchFolder()
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", name: "Ann", channel: "messaging:general")
            try await Self.withModerator(server) { _ in
                // A link signed for a file that was deleted since.
                let deleted = try await ann.client.uploadAttachment(localFileURL: try files.png(named: "x.png"), type: .image, to: "messaging:general")
                try await ann.client.deleteUpload(url: deleted.fileURL, in: "messaging:general", isImage: true)
                let gone = deleted.fileURL
                let missing = await #expect(throws: ChatClientError.self) {
                    try await ann.send(text: "ghost", attachments: [AnyAttachmentPayload(json: ["type": "image", "image_url": .string(gone.absoluteString), "title": "x.png"])])
                }
                #expect(missing?.message.contains("x.png was not posted: its file is not on the file host (HTTP") == true, "\(String(describing: missing))")

                let big = try files.file("movie.mp4", bytes: 30 * 1024 * 1024)
                let started = ContinuousClock.now
                let refused = await #expect(throws: ChatClientError.self) { try await ann.sendFile(big) }
                #expect(refused?.message.contains("over the 25.0 MB limit") == true, "\(String(describing: refused))")
                #expect(ContinuousClock.now - started < .seconds(30))
            }
        }
    }
}

/// Waits until the file of `attachment` is gone from the server (404), as work done after an answer takes a moment.
func waitUntilGone(_ attachment: AnyChatMessageAttachment, _ client: ChatClient, timeout: Duration = .seconds(10)) async throws {
    let deadline = ContinuousClock.now + timeout
    while true {
        do {
            _ = try await client.downloadHead(of: attachment, length: 16)
        } catch let error as ChatClientError where error.httpStatus == 404 {
            return
        }
        guard ContinuousClock.now < deadline else { throw ChatClientError(code: .downloadFailed, message: "the file is still there after \(timeout)") }
        try await Task.sleep(for: .milliseconds(50))
    }
}
