import ChatBotKit
import ChatClient
import ChatModels
import Foundation

extension ArchiveBot {
    /// `/export` answers with the service's export of the channel (the channel, its members and
    /// every message, thread replies included) as a JSON file; `/export 24h` with the messages
    /// of the last 24 hours only. The service writes the file; the bot waits for it, fetches it
    /// through its signed link and posts it.
    static func addExport(to bot: Bot) {
        bot.command("export") { invocation, context in
            var since: Date?
            if !invocation.arguments.isEmpty {
                guard invocation.arguments.count == 1, let period = DurationText.parse(invocation.arguments[0]) else {
                    try await context.reply(text: "Say /export for the whole channel, or /export 24h for the last 24 hours (s, m, h or d).")
                    return
                }
                since = Date().addingTimeInterval(-period.timeInterval)
            }
            let cid = context.channel.cid
            let taskId = try await context.client.exportChannels([ChannelExportRequest(cid, messagesSince: since)])
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("channel-export-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = try await context.client.downloadChannelExport(
                taskId, to: folder.appendingPathComponent("\(cid.type.rawValue)-\(cid.id)-export.json"))
            let count = try ChannelExport.read(from: file).first?.messages.count ?? 0
            let period = invocation.arguments.first.map { " of the last \($0)" } ?? ""
            try await context.reply(
                text: "\(count) \(count == 1 ? "message" : "messages")\(period) exported.",
                attachments: [try AnyAttachmentPayload(localFileURL: file, attachmentType: .file)])
        }
    }
}
