import ChatBotKit
import ChatClient
import ChatModels
import Foundation
import Logging

/// The automation example: every file and image posted in its channels is downloaded (through
/// the link refresh, so old links still work) into a folder, deduplicated by SHA-256; when a
/// message is deleted (by its author or a moderator) its files leave the archive again;
/// `/archive` answers with the manifest.
public enum ArchiveBot: BotKind {
    /// `kind: archive`.
    public static let name = "archive"

    /// Builds the bot from its entry (option: `folder`, a path).
    public static func makeBot(_ entry: BotsConfiguration.BotEntry, environment: BotKindEnvironment) throws -> Bot {
        try entry.node.allowOnly(BotsConfiguration.commonBotKeys + ["folder"])
        let archive = try Archive(folder: try environment.path(entry.node["folder"], default: "\(entry.name)/archive"))
        return make(name: entry.name, user: User(id: entry.user, name: "Archive bot"), archive: archive)
    }

    /// The bot with its handlers, filing into `archive`.
    public static func make(name: String, user: User, archive: Archive) -> Bot {
        let bot = Bot(name: name, user: user)
        for type in [AttachmentType.file, .image, .video, .audio, .voiceRecording] {
            bot.on(type) { attachment, context in
                let json = attachment.rawJSON
                let fileName = json["title"]?.stringValue ?? json["fallback"]?.stringValue ?? "file"
                let downloaded = try await context.download(attachment)
                let entry = try archive.store(
                    downloaded, name: fileName, messageId: context.message.id, cid: context.channel.cid,
                    userId: context.message.user?.id ?? "unknown")
                context.logger.info(
                    "Archived \(fileName)", metadata: ["sha256": "\(entry.sha256)", "duplicate": "\(entry.duplicate)"])
            }
        }
        // A moderator may delete a file this bot has just archived: the deletion is handled
        // after the message's own handlers, so the archived copy is there to remove.
        bot.onMessageDeleted { deletion, context in
            let removed = try archive.remove(messageId: deletion.message.id)
            guard !removed.isEmpty else { return }
            context.logger.info("Removed the files of a deleted message", metadata: ["files": "\(removed.map(\.name))"])
        }
        bot.command("archive") { _, context in
            let entries = try archive.entries()
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("archive-manifest-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let manifest = folder.appendingPathComponent("archive-manifest.json")
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(entries).write(to: manifest)
            let distinct = Set(entries.map(\.sha256)).count
            try await context.reply(
                text: "\(entries.count) files archived (\(distinct) distinct).",
                attachments: [try AnyAttachmentPayload(localFileURL: manifest, attachmentType: .file)])
        }
        return bot
    }
}
