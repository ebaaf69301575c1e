import ChatBotKitConfiguration
import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatModels
import FileSniffing
import Foundation
import ModerationBot
import Testing

@Suite("Example: the moderation bot")
struct ModerationBotTests {
    /// The policy of the repository's bots.yaml.
    static let strict = ModerationPolicy(
        blockedExtensions: [".exe", ".dll", ".bat", ".sh"], allowedMimeTypes: ["image/*", "application/pdf", "text/csv"],
        maximumFileSize: 25 * 1024 * 1024, sniffContent: true, action: .deleteAndNotify)

    @Test("libmagic reads the real type from the bytes, whatever the name says")
    func sniffing() throws {
        let files = try ScratchFolder()
        let sniffer = try FileTypeSniffer()
        #expect(try sniffer.mimeType(ofFile: files.png(named: "photo.pdf")) == "image/png")
        #expect(try sniffer.mimeType(ofFile: files.pdf(named: "notes.txt")) == "application/pdf")
        #expect(try sniffer.mimeType(ofFile: files.text("date,km\n2026-11-01,5\n", named: "runs.csv")).hasPrefix("text/"))
        let program = try sniffer.mimeType(ofFile: files.executable(disguisedAs: "holiday.png"))
        #expect(["application/x-executable", "application/x-pie-executable", "application/x-sharedlib"].contains(program), "\(program)")
        #expect(throws: SniffingError.self) { try sniffer.mimeType(ofFile: URL(fileURLWithPath: "/nonexistent/file.png")) }
    }

    /// (file name, declared MIME type, size, sniffed type) and what the strict policy says.
    @Test("the policy judges name, declared type, size and sniffed content", arguments: [
        ("holiday.png", "image/png", 14_000, "application/x-pie-executable", "executable program"),
        ("setup.exe", "application/octet-stream", 14_000, "application/x-dosexec", ".exe files are not allowed"),
        ("huge.png", "image/png", 30 * 1024 * 1024, "image/png", "over the 25.0 MB limit"),
        ("song.mp3", "audio/mpeg", 4_000, "audio/mpeg", "audio/mpeg files are not allowed"),
        ("fake.pdf", "application/pdf", 2_000, "image/png", "its content is image/png, not the application/pdf"),
        ("cat.png", "image/png", 70, "image/png", nil),
        ("report.pdf", "application/pdf", 400, "application/pdf", nil),
        ("runs.csv", "text/csv", 40, "text/plain", nil),
        ("beach.png", "image/png", 26, "application/octet-stream", "its content is application/octet-stream, not the image/png"),
        ("scan.pdf", "application/pdf", 26, "application/octet-stream", "its content is application/octet-stream"),
        ("logo.svg", "image/svg+xml", 300, "text/plain", nil),
    ] as [(String, String, Int64, String, String?)])
    func policy(_ name: String, _ declared: String, _ size: Int64, _ sniffed: String, _ expected: String?) {
        let verdict = Self.strict.violation(name: name, declaredMimeType: declared, size: size, sniffedMimeType: sniffed)
        if let expected {
            #expect(verdict?.contains(expected) == true, "\(name): \(verdict ?? "allowed")")
        } else {
            #expect(verdict == nil, "\(name): \(verdict ?? "")")
        }
    }

    @Test("an executable renamed .png is deleted with the file on the CDN, and the sender is told why; real files stay")
    func deletesDisguisedExecutable() async throws {
        let files = try ScratchFolder()
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let bot = try ModerationBot.make(name: "moderator", user: User(id: "moderator"), policy: Self.strict)
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let photo = try await ann.sendFile(try files.png(named: "cat.png"), as: .image)
                // The image endpoint refuses bytes that are not an image, so it travels as a file, named like a photo.
                let disguised = try await ann.sendFile(try files.executable(disguisedAs: "holiday.png"), as: .file, text: "my holiday")
                let notice = try #require(try await ann.replies(to: disguised, from: "moderator").first)
                #expect(notice.text.hasPrefix("@Ann: holiday.png was removed because it is really an executable program"), "\(notice.text)")
                #expect(notice.extraData["moderation_notice"]?["file"]?.stringValue == "holiday.png", "\(notice.json)")
                #expect(try await ann.current(disguised) == nil, "the message is hard-deleted")
                await #expect(throws: ChatClientError.self) { _ = try await ann.client.download(disguised.attachments[0]) }
                // The real photo was checked first and left alone.
                #expect(try await ann.current(photo)?.attachments.count == 1)
                let botMessages = try await ann.client.queryChannel("messaging:general").messages.filter { $0.user?.id == "moderator" }
                #expect(botMessages.count == 1)
            }
        }
    }

    @Test("an edit is judged too: adding a real photo passes, adding an executable renamed .png deletes the message with a notice")
    func judgesEdits() async throws {
        let files = try ScratchFolder()
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let bot = try ModerationBot.make(name: "moderator", user: User(id: "moderator"), policy: Self.strict)
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let channel = ann.client.channel(ann.channel)
                let sent = try await ann.send(text: "trip")
                let photo = try await channel.uploadAttachment(localFileURL: try files.png(named: "cat.png"), type: .image)
                let photoAttachment = AnyAttachmentPayload(payload: ImageAttachmentPayload(title: "cat.png", imageURL: photo.fileURL))
                try await ann.client.updateMessage(sent.id, text: "trip, with a photo", attachments: [photoAttachment])
                let program = try files.executable(disguisedAs: "holiday.png")
                let uploaded = try await channel.uploadAttachment(localFileURL: program, type: .file)
                let size = try FileManager.default.attributesOfItem(atPath: program.path)[.size] as? Int
                let disguised = AnyAttachmentPayload(
                    payload: FileAttachmentPayload(title: "holiday.png", assetURL: uploaded.fileURL, fileSize: size.map(Int64.init), mimeType: "image/png"))
                try await ann.client.updateMessage(sent.id, text: "trip, with more", attachments: [photoAttachment, disguised])
                let notice = try #require(try await ann.replies(to: sent, from: "moderator").first)
                #expect(notice.text.hasPrefix("@Ann: holiday.png was removed because it is really an executable program"), "\(notice.text)")
                #expect(try await ann.current(sent) == nil, "the edited message is hard-deleted")
                try await Task.sleep(for: .milliseconds(200))
                let botMessages = try await ann.client.queryChannel("messaging:general").messages.filter { $0.user?.id == "moderator" }
                #expect(botMessages.count == 1, "the photo passed, in both edits")
            }
        }
    }

    @Test("an edit judges only the files it adds: editing the text repeats no notice, an added file gets its own")
    func judgesOnlyAddedFiles() async throws {
        let files = try ScratchFolder()
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let entry = try moderatorEntry(
                """
                policy: { blocked_file_extensions: [.sh], action: notify }
                """)
            let bot = try ModerationBot.makeBot(entry, environment: try ScratchFolder().environment)
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let channel = ann.client.channel(ann.channel)
                func script(_ name: String) async throws -> AnyAttachmentPayload {
                    let uploaded = try await channel.uploadAttachment(localFileURL: try files.text("echo hi", named: name), type: .file)
                    return AnyAttachmentPayload(payload: FileAttachmentPayload(title: name, assetURL: uploaded.fileURL))
                }
                func notices() async throws -> [String] {
                    try await ann.client.queryChannel("messaging:general").messages.filter { $0.user?.id == "moderator" }.map(\.text)
                }
                let setup = try await script("setup.sh")
                let sent = try await ann.send(text: "scripts", attachments: [setup])
                func waitForNotices(_ count: Int) async throws {
                    try await eventually("the moderator posted \(count) notices", timeout: .seconds(6)) { try await notices().count >= count }
                }
                try await waitForNotices(1)
                try await ann.client.updateMessage(sent.id, text: "scripts, renamed", attachments: [setup])
                try await Task.sleep(for: .milliseconds(300))
                #expect(try await notices().count == 1, "an edit of the text alone is not judged again")
                try await ann.client.updateMessage(sent.id, text: "scripts, two", attachments: [setup, try await script("deploy.sh")])
                try await waitForNotices(2)
                try await Task.sleep(for: .milliseconds(300))
                #expect(
                    try await notices() == [
                        "@Ann: setup.sh breaks this channel's file policy: .sh files are not allowed here.",
                        "@Ann: deploy.sh breaks this channel's file policy: .sh files are not allowed here.",
                    ])
            }
        }
    }

    @Test("per-channel policies: flag in one channel, notify in another")
    func flagAndNotify() async throws {
        let files = try ScratchFolder()
        try await TestChatServer.withServer { server in
            let inLounge = try await TestUser.join(server, id: "ann", channel: "messaging:lounge")
            let inDesk = try await TestUser.join(server, id: "ann", channel: "messaging:desk")
            let entry = try botEntry(
                """
                name: moderator
                kind: moderation
                channels: [messaging:lounge, messaging:desk]
                policy: { blocked_file_extensions: [.zip], action: flag }
                channel_policies:
                  messaging:desk: { max_file_size: 1KB, action: notify }
                """)
            let bot = try ModerationBot.makeBot(entry, environment: try ScratchFolder().environment)
            try await server.withBot(bot, channels: ["messaging:lounge", "messaging:desk"]) { _ in
                let zipped = try await inLounge.sendFile(try files.file("stuff.zip", bytes: 300))
                let big = try await inDesk.sendFile(try files.file("big.bin", bytes: 4096))
                let notice = try #require(try await inDesk.replies(to: big, from: "moderator").first)
                #expect(notice.text == "@Ann: big.bin breaks this channel's file policy: it is 4.0 KB, over the 1.0 KB limit.")
                #expect(try await inDesk.current(big) != nil, "notify leaves the message")
                let admin = server.client(as: "admin")
                var flags: [MessageFlag] = []
                for _ in 0..<100 where flags.isEmpty {
                    flags = try await admin.messageFlags(in: "messaging:lounge")
                    try await Task.sleep(for: .milliseconds(30))
                }
                #expect(flags.map(\.message.id) == [zipped.id])
                #expect(flags.first?.userId == "moderator")
                #expect(flags.first?.reason == "stuff.zip: .zip files are not allowed here")
                #expect(try await admin.messageFlags(in: "messaging:desk").isEmpty)
            }
        }
    }

    @Test("a repeat offender is banned from the channel at ban_after files, counted from the notices, across a restart of the bot")
    func bansRepeatOffenders() async throws {
        let files = try ScratchFolder()
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let bob = try await TestUser.join(server, id: "bob", channel: "messaging:general")
            let entry = try moderatorEntry(
                """
                policy: { blocked_file_extensions: [.sh], action: notify, ban_after: 2, ban_for: 10m }
                """)
            // Each run is a new bot, as after a restart: it remembers nothing of the last one.
            func withModerator(_ body: () async throws -> Void) async throws {
                let bot = try ModerationBot.makeBot(entry, environment: try ScratchFolder().environment)
                try await server.withBot(bot, channels: ["messaging:general"]) { _ in try await body() }
            }
            try await withModerator {
                let first = try await ann.sendFile(try files.text("echo 1", named: "one.sh"))
                let notice = try #require(try await ann.replies(to: first, from: "moderator").first)
                #expect(notice.text == "@Ann: one.sh breaks this channel's file policy: .sh files are not allowed here.")
                #expect(notice.extraData["moderation_offender"] == "ann")
                let other = try await bob.sendFile(try files.text("echo b", named: "bob.sh"))
                _ = try #require(try await bob.replies(to: other, from: "moderator").first)
            }
            try await withModerator {
                let second = try await ann.sendFile(try files.text("echo 2", named: "two.sh"))
                let notice = try #require(try await ann.replies(to: second, from: "moderator").first)
                #expect(
                    notice.text
                        == "@Ann: two.sh breaks this channel's file policy: .sh files are not allowed here. "
                        + "That is 2 files against the policy, so Ann is banned from this channel for 10m.")
            }
            let bans = try await server.client(as: "admin").bannedUsers(in: "messaging:general")
            #expect(bans.map(\.userId) == ["ann"], "bob broke the policy once, and ann's files are not his")
            #expect(bans.first?.reason == "2 files against the file policy" && bans.first?.bannedBy == "moderator")
            let minutes = try #require(bans.first?.expires).timeIntervalSince(try #require(bans.first?.createdAt)) / 60
            #expect(abs(minutes - 10) < 0.01)
            await #expect {
                try await ann.send(text: "let me explain")
            } throws: { ($0 as? ChatClientError)?.streamCode == 17 }
            _ = try await bob.send(text: "bob may still talk")
        }
    }

    @Test("with ban_deletes_messages, the ban takes the offender's messages in the channel with it, and the notice says so")
    func banDeletesMessages() async throws {
        let files = try ScratchFolder()
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let bob = try await TestUser.join(server, id: "bob", channel: "messaging:general")
            let entry = try moderatorEntry(
                """
                policy: { blocked_file_extensions: [.sh], action: notify, ban_after: 1, ban_deletes_messages: soft }
                """)
            let bot = try ModerationBot.makeBot(entry, environment: try ScratchFolder().environment)
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let earlier = try await ann.send(text: "click my link")
                let kept = try await bob.send(text: "hi all")
                let file = try await ann.sendFile(try files.text("echo 1", named: "one.sh"))
                let notice = try #require(try await ann.replies(to: file, from: "moderator").first)
                #expect(
                    notice.text
                        == "@Ann: one.sh breaks this channel's file policy: .sh files are not allowed here. "
                        + "That is 1 files against the policy, so Ann is banned from this channel until a moderator lifts the ban, "
                        + "and their messages here were deleted.")
                let admin = server.client(as: "admin")
                #expect(try await admin.getMessage(earlier.id).type == .deleted)
                #expect(try await admin.getMessage(file.id).type == .deleted)
                #expect(try await admin.getMessage(kept.id).type == .regular, "bob's messages stay")
                #expect(try await admin.getMessage(notice.id).type == .regular, "the notice is the moderator's")
            }
        }
    }

    @Test("files from trusted users (the other bots) are not judged; the same file from a member is")
    func trustedUsers() async throws {
        let files = try ScratchFolder()
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let reporter = try await TestUser.join(server, id: "report-bot", channel: "messaging:general")
            let entry = try moderatorEntry(
                """
                policy: { allowed_mime_types: [image/*], sniff_content: true }
                trusted_users: [report-bot]
                """)
            let bot = try ModerationBot.makeBot(entry, environment: try ScratchFolder().environment)
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let report = try await reporter.sendFile(try files.text("{\"total\": 3}", named: "report.json"))
                let copy = try await ann.sendFile(try files.text("{\"total\": 3}", named: "report.json"))
                let notice = try #require(try await ann.replies(to: copy, from: "moderator").first)
                #expect(notice.text.hasPrefix("@Ann: report.json was removed because"), "\(notice.text)")
                #expect(try await ann.current(copy) == nil)
                // A channel's messages are judged in order, so the report was passed over before.
                #expect(try await ann.current(report)?.attachments.count == 1)
                // So is a file the trusted user's edit adds; ann's next file shows the edit was handled.
                let more = try await reporter.client.channel(reporter.channel).uploadAttachment(
                    localFileURL: try files.text("{}", named: "more.json"), type: .file)
                try await reporter.client.updateMessage(
                    report.id, text: "reports", attachments: [AnyAttachmentPayload(payload: FileAttachmentPayload(title: "more.json", assetURL: more.fileURL))])
                let second = try await ann.sendFile(try files.text("{}", named: "again.json"))
                _ = try #require(try await ann.replies(to: second, from: "moderator").first)
                #expect(try await ann.current(report)?.attachments.first?.rawJSON["title"]?.stringValue == "more.json")
                let notices = try await ann.client.queryChannel("messaging:general").messages.filter { $0.user?.id == "moderator" }.map(\.text)
                #expect(notices.count == 2 && notices.allSatisfy { $0.hasPrefix("@Ann: ") }, "\(notices)")
            }
        }
    }

    @Test("a moderator's removal reaction removes any message with its files, a trusted bot's too, and tells its author; other reactions do nothing")
    func moderatorsRemoveByReaction() async throws {
        let files = try ScratchFolder()
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let mia = try await TestUser.join(server, id: "mia", channel: "messaging:general")
            let reporter = try await TestUser.join(server, id: "report-bot", channel: "messaging:general")
            let entry = try moderatorEntry(
                """
                trusted_users: [report-bot]
                moderators: [mia]
                """)
            let bot = try ModerationBot.makeBot(entry, environment: try ScratchFolder().environment)
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let photo = try await ann.sendFile(try files.png(named: "cat.png"), as: .image)
                let report = try await reporter.send(text: "weekly report")
                // Handled in order before mia's remove: the author's own and a moderator's other reaction.
                try await ann.client.sendReaction("remove", to: photo.id, as: "ann")
                try await mia.client.sendReaction("like", to: photo.id, as: "mia")
                try await mia.client.sendReaction("remove", to: photo.id, as: "mia")
                let notice = try #require(try await ann.replies(to: report, from: "moderator").first)
                #expect(notice.text == "@Ann: a message of yours was removed by Mia, a moderator.")
                #expect(try await ann.current(photo) == nil, "hard-deleted")
                await #expect(throws: ChatClientError.self) { _ = try await ann.client.download(photo.attachments[0]) }
                #expect(try await ann.current(report) != nil)
                try await mia.client.sendReaction("remove", to: report.id, as: "mia")
                let both = try await ann.replies(to: report, from: "moderator", count: 2)
                #expect(both.map(\.text).last == "@Report-Bot: a message of yours was removed by Mia, a moderator.")
                #expect(try await ann.current(report) == nil, "trusted users' files are not judged, but moderators remove their messages")
            }
        }
    }

    @Test("policy options in bots.yaml are checked, with line and column", arguments: [
        ("policy: { action: explode }", "action \"explode\" is not one of delete_and_notify, flag, notify", 6, 23),
        ("policy: { blocked_file_extensions: [exe] }", "extensions start with a dot", 6, 40),
        ("policy: { allowed_mime_types: [pdf] }", "not a MIME type", 6, 35),
        ("policy: { max_file_size: huge }", "huge", 6, 30),
        ("policy: { sniff: true }", "unknown key \"sniff\"", 6, 15),
        ("channel_policies: { general: {} }", "\"general\" is not a channel id", 6, 34),
        ("trusted_users: { archive-bot: yes }", "must be a list, found a mapping", 6, 20),
        ("policy: { ban_after: 0 }", "ban_after must be 1 or more, found 0", 6, 26),
        ("policy: { action: flag, ban_after: 2 }", "action: flag posts none; use notify or delete_and_notify", 6, 40),
        ("policy: { ban_for: 1h }", "needs ban_after, the number of files that earns a ban", 6, 24),
        ("policy: { ban_after: 2, ban_for: soon }", "must be a duration such as 30s", 6, 38),
        ("policy: { ban_deletes_messages: soft }", "needs ban_after, the number of files that earns a ban", 6, 37),
        ("policy: { ban_after: 2, ban_deletes_messages: all }", "must be soft (a moderator can undelete them) or hard (for good), found \"all\"", 6, 51),
        ("removal_reaction: gone", "removal_reaction needs moderators, the users whose reaction removes a message", 6, 23),
        ("moderators: [mia]\nremoval_reaction: \"\"", "removal_reaction must be a reaction type of 1 to 30 characters", 7, 23),
        ("policy: { check: later }", "check \"later\" is not one of after_posting, before_send", 6, 22),
        ("policy: { action: flag, check: before_send }", "check: before_send refuses a file before anyone sees it, which is action: delete_and_notify", 6, 36),
    ])
    func badPolicies(_ yaml: String, _ message: String, _ line: Int, _ column: Int) throws {
        let entry = try botEntry("name: moderator\nkind: moderation\nchannels: [messaging:general]\n\(yaml)")
        #expect {
            _ = try ModerationBot.makeBot(entry, environment: try ScratchFolder().environment)
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            #expect(error.message.contains(message), "\(error)")
            #expect((error.line, error.column) == (line, column), "\(error)")
            return true
        }
    }
}

/// The `bots.yaml` entry of a moderator named `moderator` in messaging:general, with `options`
/// (its policy, trusted users, ...).
func moderatorEntry(_ options: String) throws -> BotsConfiguration.BotEntry {
    try botEntry("name: moderator\nkind: moderation\nchannels: [messaging:general]\n" + options)
}
