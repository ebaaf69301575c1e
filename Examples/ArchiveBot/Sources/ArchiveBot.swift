import ChatBotKitConfiguration
import ChatBotKit
import ChatClient
import ChatModels
import Foundation
import Logging

/// The automation example: every file and image posted in its channels is downloaded (through
/// the link refresh, so old links still work) into a folder, deduplicated by SHA-256; an edit's
/// added files are archived and the files it takes out leave the archive, as do all the files
/// of a deleted message (by its author or a moderator) or of a truncated or deleted channel, and
/// come back when a moderator undeletes the message;
/// `/archive` answers with the manifest, and `/export` with the service's export of the channel.
public enum ArchiveBot: BotKind {
    /// `kind: archive`.
    public static let name = "archive"

    /// The manifest of what it archived.
    public static let samples = [BotKindSample("--text /archive"), BotKindSample("--text /export")]

    /// Builds the bot from its entry (option: `folder`, a path).
    public static func makeBot(_ entry: BotsConfiguration.BotEntry, environment: BotKindEnvironment) throws -> Bot {
        try entry.node.allowOnly(BotsConfiguration.commonBotKeys + ["folder"])
        let archive = try Archive(folder: try environment.path(entry.node["folder"], default: "\(entry.name)/archive"))
        return make(name: entry.name, user: User(id: entry.user, name: "Archive bot"), archive: archive)
    }

    /// The bot with its handlers, filing into `archive`.
    public static func make(name: String, user: User, archive: Archive) -> Bot {
        let bot = Bot(name: name, user: user)
        let archived: [AttachmentType] = [.file, .image, .video, .audio, .voiceRecording]
        for type in archived {
            bot.on(type) { attachment, context in try await archiveFile(attachment, of: context, into: archive) }
        }
        // An edit may add files (archived now) and take files out (forgotten, as a deleted
        // message's are). The manifest says which files of the message are archived, by link.
        bot.onMessageUpdated { context in
            try await reconcile(context.message, of: context, types: archived, with: archive)
        }
        // A moderator's undelete brings the message's files back: they are archived again.
        bot.onMessageUndeleted { context in
            try await reconcile(context.message, of: context, types: archived, with: archive)
        }
        // A moderator may delete a file this bot has just archived: the deletion is handled
        // after the message's own handlers, so the archived copy is there to remove.
        bot.onMessageDeleted { deletion, context in
            let removed = try archive.remove(messageId: deletion.message.id)
            guard !removed.isEmpty else { return }
            context.logger.info("Removed the files of a deleted message", metadata: ["files": "\(removed.map(\.name))"])
        }
        // Truncating or deleting a channel takes its messages away without a message.deleted
        // for each: their files leave the archive as a deleted message's do.
        bot.onChannelTruncated { truncation, _ in
            let removed = try archive.remove(cid: truncation.cid, postedUpTo: truncation.truncatedAt)
            guard !removed.isEmpty else { return }
            Logger(label: "ArchiveBot").info(
                "Removed the files of a \(truncation.isChannelDeleted ? "deleted" : "truncated") channel",
                metadata: ["cid": "\(truncation.cid)", "files": "\(removed.map(\.name))"])
        }
        // So do the files of a user whose messages were deleted at once (banned with them,
        // deleted or deactivated).
        bot.onUserMessagesDeleted { deletion, _ in
            let removed = try archive.remove(cid: deletion.cid, userId: deletion.user.id, postedUpTo: deletion.deletedAt)
            guard !removed.isEmpty else { return }
            Logger(label: "ArchiveBot").info(
                "Removed the files of \(deletion.user.id)'s deleted messages",
                metadata: ["cid": "\(deletion.cid)", "files": "\(removed.map(\.name))"])
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
                text: "\(entries.count) \(entries.count == 1 ? "file" : "files") archived (\(distinct) distinct).",
                attachments: [try AnyAttachmentPayload(localFileURL: manifest, attachmentType: .file)])
        }
        addExport(to: bot)
        return bot
    }

    /// Downloads one attachment of the message being handled into the archive.
    /// Makes the archive hold exactly `message`'s files of `types`: those not archived yet are
    /// downloaded, and those the message no longer has leave.
    static func reconcile(_ message: Message, of context: BotContext, types: [AttachmentType], with archive: Archive) async throws {
        let files = message.attachments.filter { types.contains($0.type) }.compactMap { attachment in
            attachment.fileLink.map { (attachment, Archive.linkKey($0)) }
        }
        let stored = Set(try archive.entries().filter { $0.messageId == message.id }.compactMap(\.link))
        var firstError: (any Error)?
        for (attachment, link) in files where !stored.contains(link) {
            do {
                try await archiveFile(attachment, of: context, into: archive)
            } catch {
                firstError = firstError ?? error
            }
        }
        let gone = stored.subtracting(files.map(\.1))
        if !gone.isEmpty {
            let removed = try archive.remove(messageId: message.id, links: gone)
            context.logger.info("Removed the files an edit took out", metadata: ["files": "\(removed.map(\.name))"])
        }
        if let firstError { throw firstError }
    }

    static func archiveFile(_ attachment: AnyChatMessageAttachment, of context: BotContext, into archive: Archive) async throws {
        let json = attachment.rawJSON
        let fileName = json["title"]?.stringValue ?? json["fallback"]?.stringValue ?? "file"
        let downloaded: URL
        do {
            downloaded = try await context.download(attachment)
        } catch let error as ChatClientError where error.code == .downloadFailed && error.httpStatus == 404 {
            // Its message deleted before its turn came (a moderator that was quicker, the author):
            // nothing is left to archive, and the deletion would take it out anyway. A message
            // still there with a dead link is an error worth reporting.
            guard try await isDeleted(context.message.id, client: context.client) else { throw error }
            context.logger.info("\(fileName) was deleted with its message before it could be archived")
            return
        }
        let entry = try archive.store(
            downloaded, name: fileName, messageId: context.message.id, cid: context.channel.cid,
            userId: context.message.user?.id ?? "unknown", link: attachment.fileLink, postedAt: context.message.createdAt)
        context.logger.info("Archived \(fileName)", metadata: ["sha256": "\(entry.sha256)", "duplicate": "\(entry.duplicate)"])
    }

    /// Whether message `id` is gone (hard deleted) or soft deleted.
    static func isDeleted(_ id: String, client: ChatClient) async throws -> Bool {
        do {
            return try await client.getMessage(id).type == .deleted
        } catch let error as ChatClientError where error.httpStatus == 404 {
            return true
        }
    }
}
