import ChatBotKit
import ChatClient
import ChatModels
import FileSniffing
import Foundation

/// Judging one file against a policy: by its name, declared type and size, and with
/// `sniff_content` by its real type, read from its first bytes only.
extension ModerationBot {
    /// How much of a file is read to sniff its type: libmagic looks at most about this far
    /// (its default `bytes_max`), so a 90 MB video costs what a 1 MB one does.
    static let headLength = 1 << 20

    /// A judged file: what it is called, and why it breaks the policy (nil: it passes).
    struct FileVerdict: Sendable {
        let name: String
        let reason: String?
        let sniffedMimeType: String?
    }

    /// The attachment's file name as its message shows it.
    static func fileName(_ attachment: AnyChatMessageAttachment) -> String {
        let json = attachment.rawJSON
        return json["title"]?.stringValue ?? json["fallback"]?.stringValue ?? attachment.fileLink?.lastPathComponent ?? "file"
    }

    /// Judges the attachment's file; nil when it has no file. Its size is the host's when it
    /// is read (a declared `file_size` can lie), the declared one otherwise.
    static func judge(_ attachment: AnyChatMessageAttachment, policy: ModerationPolicy, sniffer: FileTypeSniffer, client: ChatClient)
        async throws -> FileVerdict?
    {
        guard attachment.fileLink != nil else { return nil }
        let json = attachment.rawJSON
        let name = fileName(attachment)
        let declaredSize = json["file_size"]?.intValue.map(Int64.init)
        var sniffed: String?
        var size = declaredSize
        if policy.sniffContent || declaredSize == nil {
            let head = try await client.downloadHead(of: attachment, length: headLength)
            size = head.totalSize ?? declaredSize
            if policy.sniffContent { sniffed = try sniffer.mimeType(of: head.bytes) }
        }
        let reason = policy.violation(name: name, declaredMimeType: json["mime_type"]?.stringValue, size: size, sniffedMimeType: sniffed)
        return FileVerdict(name: name, reason: reason, sniffedMimeType: sniffed)
    }

    /// The custom fields of a notice: what was wrong with which file of whose message
    /// (`messageKey`: its id, or what stands for it). The offender is a flat field so that a
    /// search can count a sender's notices.
    static func notice(_ name: String, _ reason: String, messageKey: String, offender: String?) -> [String: RawJSON] {
        var fields: [String: RawJSON] = ["moderation_notice": ["file": .string(name), "reason": .string(reason), "message_id": .string(messageKey)]]
        if let offender { fields["moderation_offender"] = .string(offender) }
        return fields
    }

    /// Bans `offender` from `cid` when this file brings their files against the policy to
    /// `banAfter`; returns the sentence the notice adds about it, or "".
    ///
    /// The count comes from the moderator's notices in the channel, found by a message search,
    /// so it survives a restart of the bot and is the same on every node. A file counts once
    /// however often its message is delivered (notices name the message and the file). On the
    /// hosted service, search indexes new messages within seconds, so files sent faster than
    /// that may be counted late.
    static func banIfRepeated(
        file: String, messageKey: String, offender: User, in cid: ChannelId, policy: ModerationPolicy, bot: Bot, client: ChatClient
    ) async throws -> String {
        guard let banAfter = policy.banAfter else { return "" }
        var offences: Set<String> = ["\(messageKey)\n\(file)"]
        var next: String?
        repeat {
            let page = try await client.searchMessages(
                .filter(["moderation_offender": .string(offender.id), "user.id": .string(bot.user.id)]), in: cid, limit: 100, after: next)
            for notice in page.messages {
                guard let earlier = notice.extraData["moderation_notice"] else { continue }
                offences.insert("\(earlier["message_id"]?.stringValue ?? notice.id)\n\(earlier["file"]?.stringValue ?? "")")
            }
            next = page.next
        } while next != nil
        guard offences.count >= banAfter else { return "" }
        try await client.banUser(
            offender.id, in: cid, reason: "\(offences.count) files against the file policy", timeout: policy.banDuration,
            deletingMessages: policy.banDeletesMessages, as: bot.user.id)
        let name = offender.name ?? offender.id
        let length = policy.banDuration.map { "for \(DurationText.format($0))" } ?? "until a moderator lifts the ban"
        let deleted = policy.banDeletesMessages == nil ? "" : ", and their messages here were deleted"
        return " That is \(offences.count) files against the policy, so \(name) is banned from this channel \(length)\(deleted)."
    }
}
