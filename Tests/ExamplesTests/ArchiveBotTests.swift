import ArchiveBot
import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatLocking
import ChatModels
import Foundation
import Testing

@Suite("Example: the archive bot")
struct ArchiveBotTests {
    @Test("every posted file lands in the folder once per content (SHA-256); /archive answers with the manifest")
    func archivesAndDeduplicates() async throws {
        let files = try FixtureFiles()
        let data = try FixtureFiles()
        let archive = try Archive(folder: data.folder.appendingPathComponent("archive"))
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
                    [Archive.Entry].self, from: Data(contentsOf: try await ann.client.download(reply.attachments[0], to: files.folder.appendingPathComponent("manifest.json"))))
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

    @Test("a file whose signed link expired before the bot got to it is fetched through a fresh link")
    func expiredLinkIsRefreshed() async throws {
        struct Delay: BotMiddleware {
            func handle(_ message: Message, context: BotContext, next: @Sendable (Message, BotContext) async throws -> Void) async throws {
                try await Task.sleep(for: .milliseconds(2200))
                try await next(message, context)
            }
        }
        let files = try FixtureFiles()
        let data = try FixtureFiles()
        let archive = try Archive(folder: data.folder)
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
        let files = try FixtureFiles()
        let data = try FixtureFiles()
        let archive = try Archive(folder: data.folder)
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let errors = ErrorLog()
            let bot = ArchiveBot.make(name: "archive", user: User(id: "archive-bot"), archive: archive)
            bot.onError { error, _ in errors.append(error) }
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

    @Test("its bots.yaml entry takes a folder; unknown options are located errors")
    func configuration() throws {
        let data = try FixtureFiles()
        let folder = data.folder.appendingPathComponent("kept")
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

/// Errors a bot reported.
final class ErrorLog: Sendable {
    private let errors = Locked<[BotError]>([])
    func append(_ error: BotError) { errors.withLock { $0.append(error) } }
    var all: [BotError] { errors.withLock { $0 } }
}
