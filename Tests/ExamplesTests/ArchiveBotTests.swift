import ChatBotKitConfiguration
import ArchiveBot
import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Foundation
import ModerationBot
import Prometheus
import Testing

@Suite("Example: the archive bot")
struct ArchiveBotTests {
    @Test("every posted file lands in the folder once per content (SHA-256); /archive answers with the manifest")
    func archivesAndDeduplicates() async throws {
        let files = try ScratchFolder()
        let data = try ScratchFolder()
        let archive = try Archive(folder: data.path("archive"))
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let bob = try await TestUser.join(server, id: "bob", channel: "messaging:general")
            try await server.withBot(ArchiveBot.make(name: "archive", user: User(id: "archive-bot"), archive: archive), channels: ["messaging:general"]) { _ in
                try await ann.sendFile(try files.pdf(named: "plan.pdf"))
                try await bob.sendFile(try files.pdf(named: "plan-copy.pdf"))
                try await ann.send(attachments: [
                    try AnyAttachmentPayload(localFileURL: try files.png(named: "cat.png"), attachmentType: .image),
                    try AnyAttachmentPayload(localFileURL: try files.text("hello", named: "hello.txt"), attachmentType: .file),
                ])
                for _ in 0..<300 where try archive.entries().count < 4 { try await Task.sleep(for: .milliseconds(20)) }
                let command = try await ann.send(text: "/archive")
                let reply = try #require(try await ann.replies(to: command, from: "archive-bot").first)
                #expect(reply.text == "4 files archived (3 distinct).")
                let manifest = try JSONDecoder().decode(
                    [Archive.Entry].self, from: Data(contentsOf: try await ann.client.download(reply.attachments[0], to: files.path("manifest.json"))))
                #expect(manifest.map(\.name) == ["plan.pdf", "plan-copy.pdf", "cat.png", "hello.txt"])
                #expect(manifest.map(\.duplicate) == [false, true, false, false])
                #expect(manifest.map(\.userId) == ["ann", "bob", "ann", "ann"])
            }
        }
        let entries = try archive.entries()
        for entry in entries {
            let stored = try Data(contentsOf: archive.folder.appendingPathComponent(entry.path))
            #expect(stored.count == Int(entry.size))
        }
        #expect(Set(entries.map(\.path)).count == 3)
        let pdf = try Data(contentsOf: archive.folder.appendingPathComponent(entries[0].path))
        #expect(pdf == (try Data(contentsOf: try files.pdf())))
    }

    @Test("/export answers with the service's export of the channel as a JSON file; /export 1h with the last hour's; a bad period gets the usage")
    func exportsTheChannel() async throws {
        let files = try ScratchFolder()
        let data = try ScratchFolder()
        let archive = try Archive(folder: data.path("archive"))
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(ArchiveBot.make(name: "archive", user: User(id: "archive-bot"), archive: archive), channels: ["messaging:general"]) { _ in
                let plan = try await ann.sendFile(try files.pdf(named: "plan.pdf"))
                let note = try await ann.send(text: "see the plan")
                let command = try await ann.send(text: "/export")
                let reply = try #require(try await ann.replies(to: command, from: "archive-bot").first)
                #expect(reply.text == "3 messages exported.")
                #expect(reply.fileAttachments.map(\.payload.title) == ["messaging-general-export.json"])
                let file = try await ann.client.download(reply.attachments[0], to: files.path("export.json"))
                let export = try #require(try ChannelExport.read(from: file).first)
                #expect(export.channel.cid == "messaging:general" && export.members.map(\.userId).contains("ann"))
                #expect(export.messages.map(\.id) == [plan.id, note.id, command.id])
                #expect(export.messages[0].fileAttachments.map(\.payload.title) == ["plan.pdf"])

                let recent = try await ann.send(text: "/export 1h")
                #expect(try await ann.replies(to: recent, from: "archive-bot").first?.text == "5 messages of the last 1h exported.")
                let bad = try await ann.send(text: "/export whenever")
                #expect(
                    try await ann.replies(to: bad, from: "archive-bot").first?.text
                        == "Say /export for the whole channel, or /export 24h for the last 24 hours (s, m, h or d).")
            }
        }
    }

    @Test("truncating a channel drops the files posted up to the truncation; deleting it drops the rest; other channels keep theirs")
    func truncatedAndDeletedChannels() async throws {
        let files = try ScratchFolder()
        let data = try ScratchFolder()
        let archive = try Archive(folder: data.url)
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            _ = try await TestUser.join(server, id: "ann", channel: "messaging:other")
            let admin = server.client(as: "admin")
            try await server.withBot(
                ArchiveBot.make(name: "archive", user: User(id: "archive-bot"), archive: archive), channels: ["messaging:general", "messaging:other"]
            ) { _ in
                try await ann.sendFile(try files.pdf(named: "old.pdf"))
                try await ann.client.channel("messaging:other").sendMessage(
                    attachments: [try AnyAttachmentPayload(localFileURL: try files.text("elsewhere", named: "other.txt"), attachmentType: .file)])
                for _ in 0..<300 where try archive.entries().count < 2 { try await Task.sleep(for: .milliseconds(20)) }
                let cutoff = Date()
                try await Task.sleep(for: .milliseconds(20))
                try await ann.sendFile(try files.png(named: "new.png"))
                for _ in 0..<300 where try archive.entries().count < 3 { try await Task.sleep(for: .milliseconds(20)) }

                try await admin.truncateChannel("messaging:general", upTo: cutoff)
                for _ in 0..<300 where try archive.entries().count > 2 { try await Task.sleep(for: .milliseconds(20)) }
                #expect(try archive.entries().map(\.name).sorted() == ["new.png", "other.txt"])

                try await admin.deleteChannel("messaging:general", hardDelete: true)
                for _ in 0..<300 where try archive.entries().count > 1 { try await Task.sleep(for: .milliseconds(20)) }
                #expect(try archive.entries().map(\.name) == ["other.txt"])
            }
        }
        let kept = try archive.entries()
        #expect(kept.first?.postedAt != nil)
        let stored = try FileManager.default.subpathsOfDirectory(atPath: archive.folder.appendingPathComponent("files").path)
            .filter { !$0.hasSuffix("/") && $0.contains(".") }
        #expect(stored.count == 1, "the files of the truncated and deleted messages left the folder too: \(stored)")
    }

    @Test("a deactivated user's files leave the archive with their messages; other users' files stay")
    func deactivatedUsersFiles() async throws {
        let files = try ScratchFolder()
        let data = try ScratchFolder()
        let archive = try Archive(folder: data.url)
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let bob = try await TestUser.join(server, id: "bob", channel: "messaging:general")
            let admin = server.client(as: "admin")
            try await server.withBot(ArchiveBot.make(name: "archive", user: User(id: "archive-bot"), archive: archive), channels: ["messaging:general"]) { _ in
                try await ann.sendFile(try files.pdf(named: "ann.pdf"))
                try await bob.sendFile(try files.png(named: "bob.png"))
                try await eventually("both files are archived") { try archive.entries().count == 2 }
                try await admin.deactivateUser("ann", markingMessagesDeleted: true)
                try await eventually("ann's file leaves") { try archive.entries().count == 1 }
                #expect(try archive.entries().map(\.name) == ["bob.png"])
            }
        }
    }

    @Test("a file whose signed link expired before the bot got to it is fetched through a fresh link")
    func expiredLinkIsRefreshed() async throws {
        struct Delay: BotMiddleware {
            func handle(_ message: Message, context: BotContext, next: @Sendable (Message, BotContext) async throws -> Void) async throws {
                try await Task.sleep(for: .milliseconds(2200))
                try await next(message, context)
            }
        }
        let files = try ScratchFolder()
        let data = try ScratchFolder()
        let archive = try Archive(folder: data.url)
        try await TestChatServer.withServer(configure: { $0.linkLifetime = .seconds(1) }) { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let bot = ArchiveBot.make(name: "archive", user: User(id: "archive-bot"), archive: archive)
            bot.use(Delay())
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let sent = try await ann.sendFile(try files.pdf())
                let link = try #require(sent.attachments.first?.rawJSON["asset_url"]?.stringValue.flatMap(URL.init(string:)))
                #expect(SignedLink(link).expiresAt != nil)
                for _ in 0..<300 where try archive.entries().isEmpty { try await Task.sleep(for: .milliseconds(20)) }
                #expect(SignedLink(link).isExpired(), "the link in the event had expired when the bot downloaded")
            }
        }
        #expect(try archive.entries().map(\.name) == ["document.pdf"])
    }

    @Test("a file that cannot be downloaded is reported and skipped; later files are still archived")
    func undownloadable() async throws {
        let files = try ScratchFolder()
        let data = try ScratchFolder()
        let archive = try Archive(folder: data.url)
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let errors = Recorder<BotError>()
            let bot = ArchiveBot.make(name: "archive", user: User(id: "archive-bot"), archive: archive)
            bot.onError { error, _ in errors.record(error) }
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let channel = ann.client.channel(ann.channel)
                let uploaded = try await channel.uploadAttachment(localFileURL: try files.pdf(named: "gone.pdf"), type: .file)
                try await channel.deleteFile(url: uploaded.fileURL)
                try await ann.send(attachments: [AnyAttachmentPayload(payload: FileAttachmentPayload(title: "gone.pdf", assetURL: uploaded.fileURL))])
                try await ann.sendFile(try files.text("still here", named: "kept.txt"))
                for _ in 0..<300 where try archive.entries().isEmpty { try await Task.sleep(for: .milliseconds(20)) }
            }
            let reported = errors.all
            #expect(reported.count == 1)
            #expect((reported.first?.underlying as? ChatClientError)?.httpStatus == 404)
        }
        #expect(try archive.entries().map(\.name) == ["kept.txt"])
    }

    @Test("a file deleted with its message before the bot's turn (here: while it was stopped) is skipped, not reported")
    func deletedBeforeItsTurn() async throws {
        let files = try ScratchFolder()
        let data = try ScratchFolder()
        let archive = try Archive(folder: data.path("archive"))
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let errors = Recorder<BotError>()
            let bot = ArchiveBot.make(name: "archive", user: User(id: "archive-bot"), archive: archive)
            bot.onError { error, _ in errors.record(error) }
            var configuration = TestChatServer.testBotConfiguration
            let checkpoint = data.path("archive.json")
            configuration.catchUp = BotService.CatchUp(checkpointFile: checkpoint, saveInterval: .milliseconds(50))
            let firstRun = PrometheusCollectorRegistry()
            try await server.withBot(
                bot, channels: ["messaging:general"], configuration: configuration, metricsFactory: PrometheusMetricsFactory(registry: firstRun)
            ) { running in
                try await ann.send(text: "before")
                // Handled, not only checkpointed (the checkpoint is saved as soon as the bot follows
                // its channels): else the next start would catch up on "before" too.
                try await eventually("the message was handled") {
                    MetricSamples(firstRun.emitToString())["chatbotkit_bot_deliveries_total", ["bot": "archive", "trigger": "message"]] == 1
                        && !running.service.hasPendingWork
                }
            }
            // While it is stopped: a file posted, then deleted with its message (as a moderator would).
            let channel = ann.client.channel(ann.channel)
            let sent = try await ann.sendFile(try files.pdf(named: "short-lived.pdf"))
            try await channel.deleteFile(url: try #require(sent.attachments.first?.fileLink))
            _ = try await ann.client.deleteMessage(sent.id, hard: true)
            let recorder = Recorder<BotError>()
            let again = ArchiveBot.make(name: "archive", user: User(id: "archive-bot"), archive: archive)
            again.onError { error, _ in recorder.record(error) }
            let registry = PrometheusCollectorRegistry()
            try await server.withBot(
                again, channels: ["messaging:general"], configuration: configuration, metricsFactory: PrometheusMetricsFactory(registry: registry)
            ) { running in
                // Caught up: the message and its deletion were both delivered and handled.
                try await eventually("the message and its deletion were handled") {
                    let samples = MetricSamples(registry.emitToString())
                    return samples["chatbotkit_bot_deliveries_total", ["bot": "archive", "trigger": "message"]] == 1
                        && samples["chatbotkit_bot_deliveries_total", ["bot": "archive", "trigger": "deletion"]] == 1
                        && !running.service.hasPendingWork
                }
            }
            #expect(recorder.all.isEmpty, "\(recorder.all)")
            #expect(errors.all.isEmpty)
        }
        #expect(try archive.entries().isEmpty)
    }

    @Test("the files of a deleted message leave the archive; content another post still holds stays, now held by that post")
    func deletedMessagesAreForgotten() async throws {
        let files = try ScratchFolder()
        let data = try ScratchFolder()
        let archive = try Archive(folder: data.url)
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let bob = try await TestUser.join(server, id: "bob", channel: "messaging:general")
            try await server.withBot(ArchiveBot.make(name: "archive", user: User(id: "archive-bot"), archive: archive), channels: ["messaging:general"]) { _ in
                let plan = try await ann.sendFile(try files.pdf(named: "plan.pdf"))
                let copy = try await bob.sendFile(try files.pdf(named: "plan-copy.pdf"))
                let hello = try await ann.sendFile(try files.text("hello", named: "hello.txt"))
                for _ in 0..<300 where try archive.entries().count < 3 { try await Task.sleep(for: .milliseconds(20)) }
                #expect(try archive.entries().map(\.duplicate) == [false, true, false])
                try await ann.client.deleteMessage(plan.id)
                try await ann.client.deleteMessage(hello.id, hard: true)
                for _ in 0..<300 where try archive.entries().count > 1 { try await Task.sleep(for: .milliseconds(20)) }
                let entries = try archive.entries()
                #expect(entries.map(\.messageId) == [copy.id])
                #expect(entries.map(\.duplicate) == [false])
            }
        }
        let kept = try #require(try archive.entries().first)
        #expect(try Data(contentsOf: archive.folder.appendingPathComponent(kept.path)) == Data(contentsOf: try files.pdf()))
        #expect(try Self.storedFiles(in: archive) == [kept.path])
    }

    @Test("the files of a message a moderator undeletes are archived again")
    func undeletedMessagesComeBack() async throws {
        let files = try ScratchFolder()
        let data = try ScratchFolder()
        let archive = try Archive(folder: data.url)
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let moderator = server.client(as: "mod")
            try await moderator.upsertUsers([User(id: "mod")])
            try await server.withBot(ArchiveBot.make(name: "archive", user: User(id: "archive-bot"), archive: archive), channels: ["messaging:general"]) { _ in
                let plan = try await ann.sendFile(try files.pdf(named: "plan.pdf"))
                for _ in 0..<300 where try archive.entries().isEmpty { try await Task.sleep(for: .milliseconds(20)) }
                try await ann.client.deleteMessage(plan.id)
                for _ in 0..<300 where try !archive.entries().isEmpty { try await Task.sleep(for: .milliseconds(20)) }
                #expect(try archive.entries().isEmpty)
                try await moderator.undeleteMessage(plan.id)
                try await eventually("the restored file is archived again") { try archive.entries().map(\.messageId) == [plan.id] }
            }
        }
        let restored = try #require(try archive.entries().first)
        #expect(restored.name == "plan.pdf" && restored.duplicate == false)
        #expect(try Data(contentsOf: archive.folder.appendingPathComponent(restored.path)) == Data(contentsOf: try files.pdf()))
        #expect(try Self.storedFiles(in: archive) == [restored.path])
    }

    @Test("an edit's added files are archived, the files it takes out leave, and files it keeps are not archived again")
    func followsEdits() async throws {
        let files = try ScratchFolder()
        let data = try ScratchFolder()
        let archive = try Archive(folder: data.url)
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(ArchiveBot.make(name: "archive", user: User(id: "archive-bot"), archive: archive), channels: ["messaging:general"]) { _ in
                let channel = ann.client.channel(ann.channel)
                let plan = try await channel.uploadAttachment(localFileURL: try files.pdf(named: "plan.pdf"), type: .file)
                let notes = try await channel.uploadAttachment(localFileURL: try files.text("see you at 8", named: "notes.txt"), type: .file)
                let planFile = AnyAttachmentPayload(payload: FileAttachmentPayload(title: "plan.pdf", assetURL: plan.fileURL))
                let notesFile = AnyAttachmentPayload(payload: FileAttachmentPayload(title: "notes.txt", assetURL: notes.fileURL))
                let sent = try await ann.send(text: "trip", attachments: [planFile])
                for _ in 0..<300 where try archive.entries().isEmpty { try await Task.sleep(for: .milliseconds(20)) }

                try await ann.client.updateMessage(sent.id, text: "trip, and notes", attachments: [planFile, notesFile])
                for _ in 0..<300 where try archive.entries().count < 2 { try await Task.sleep(for: .milliseconds(20)) }
                #expect(try archive.entries().map(\.name) == ["plan.pdf", "notes.txt"], "the kept plan is not archived a second time")
                #expect(try archive.entries().allSatisfy { $0.link?.contains("Signature") == false }, "links are kept without signature")

                try await ann.client.updateMessage(sent.id, text: "just notes", attachments: [notesFile])
                for _ in 0..<300 where try archive.entries().count > 1 { try await Task.sleep(for: .milliseconds(20)) }
                #expect(try archive.entries().map(\.name) == ["notes.txt"])
                try await ann.client.updateMessage(sent.id, text: "just the notes", attachments: [notesFile])
                try await Task.sleep(for: .milliseconds(300))
            }
        }
        let entries = try archive.entries()
        #expect(entries.map(\.name) == ["notes.txt"], "an edit of the text alone changes nothing")
        #expect(try Self.storedFiles(in: archive) == entries.map(\.path), "the plan's stored file is gone")
    }

    @Test("a file the moderator deletes after the archive stored it does not stay in the archive")
    func moderatedFilesLeaveTheArchive() async throws {
        /// Lets the moderator judge a message only once the archive has stored its files, so the
        /// deletion always comes after the archiving (the order the test is about).
        struct AfterArchived: BotMiddleware {
            let archive: Archive
            func handle(_ message: Message, context: BotContext, next: @Sendable (Message, BotContext) async throws -> Void) async throws {
                for _ in 0..<300 where try !archive.entries().contains(where: { $0.messageId == message.id }) {
                    try await Task.sleep(for: .milliseconds(20))
                }
                try await next(message, context)
            }
        }
        let files = try ScratchFolder()
        let data = try ScratchFolder()
        let archive = try Archive(folder: data.url)
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let moderator = try ModerationBot.make(name: "moderator", user: User(id: "moderator"), policy: ModerationBotTests.strict)
            moderator.use(AfterArchived(archive: archive))
            let archiver = ArchiveBot.make(name: "archive", user: User(id: "archive-bot"), archive: archive)
            try await server.withBot(archiver, channels: ["messaging:general"]) { _ in
                try await server.withBot(moderator, channels: ["messaging:general"]) { _ in
                    let script = try await ann.sendFile(try files.text("#!/bin/sh\necho hi\n", named: "install.sh"))
                    let notice = try #require(try await ann.replies(to: script, from: "moderator").first)
                    #expect(notice.text.contains("install.sh was removed"))
                    #expect(try await ann.current(script) == nil)
                    try await ann.sendFile(try files.pdf(named: "report.pdf"))
                    for _ in 0..<300 where try archive.entries().map(\.name) != ["report.pdf"] { try await Task.sleep(for: .milliseconds(20)) }
                }
            }
        }
        let entries = try archive.entries()
        #expect(entries.map(\.name) == ["report.pdf"])
        #expect(try Self.storedFiles(in: archive) == entries.map(\.path))
    }

    @Test("removing: a message with no files here changes nothing; a damaged manifest is a located error and nothing is lost")
    func removalEdges() throws {
        let data = try ScratchFolder()
        let archive = try Archive(folder: data.url)
        let stored = try archive.store(
            try data.text("kept", named: "kept.txt"), name: "kept.txt", messageId: "m-1", cid: "messaging:general", userId: "ann")
        let manifest = try Data(contentsOf: archive.folder.appendingPathComponent("manifest.jsonl"))
        #expect(try archive.remove(messageId: "m-unknown").isEmpty)
        #expect(try Data(contentsOf: archive.folder.appendingPathComponent("manifest.jsonl")) == manifest)

        var damaged = manifest
        damaged.append(Data("{\"sha256\": 12}\n".utf8))
        try damaged.write(to: archive.folder.appendingPathComponent("manifest.jsonl"))
        #expect {
            try archive.remove(messageId: "m-1")
        } throws: { error in
            let error = error as? ArchiveError
            return error?.code == .damagedManifest && error?.message.contains("manifest.jsonl line 2") == true
        }
        #expect(try Data(contentsOf: archive.folder.appendingPathComponent("manifest.jsonl")) == damaged)
        #expect(FileManager.default.fileExists(atPath: archive.folder.appendingPathComponent(stored.path).path))
    }

    /// The stored files, relative to the archive folder, sorted.
    static func storedFiles(in archive: Archive) throws -> [String] {
        let root = archive.folder.appendingPathComponent("files")
        let enumerator = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]))
        return try enumerator.compactMap { item -> String? in
            let url = try #require(item as? URL)
            guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { return nil }
            return "files/" + url.path.dropFirst(root.path.count + 1)
        }.sorted()
    }

    @Test("its bots.yaml entry takes a folder; unknown options are located errors")
    func configuration() throws {
        let data = try ScratchFolder()
        let folder = data.path("kept")
        let entry = try botEntry("name: archive\nkind: archive\nchannels: [messaging:general]\nfolder: \(folder.path)")
        _ = try ArchiveBot.makeBot(entry, environment: data.environment)
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("files").path))
        let bad = try botEntry("name: archive\nkind: archive\nchannels: [messaging:general]\nfolders: x")
        #expect {
            _ = try ArchiveBot.makeBot(bad, environment: data.environment)
        } throws: { error in
            (error as? ConfigurationError)?.code == .unknownKey && "\(error)".contains("did you mean \"folder\"")
        }
    }
}
