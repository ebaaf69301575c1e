import ChatBotKit
import ChatClient
import ChatModels
import FileSniffing
import Foundation
import Logging

/// `check: before_send`: the files of a message are judged before anyone sees it, through the
/// app's Before Message Send webhook, each from its first bytes (a range request), all at once,
/// inside the hook's deadline. A message with a file that breaks the policy is refused: it is
/// never stored or announced, and its sender reads why in its place. Then, after the answer,
/// the refused uploads are deleted from the CDN and a notice is posted, which is what
/// `ban_after` counts, as after posting.
///
/// A file that cannot be judged in time (its host is slow or down, its link cannot be renewed
/// before the message exists) is let through and judged once posted, by the same handlers as
/// `check: after_posting`; so is every file while the bot is away, as the service then lets
/// messages through. A file its host does not have (404) is refused: nobody could open it.
extension ModerationBot {
    /// What stands for a file that passed before it was sent, among the judged files: its link
    /// without the signature (the message has no id the bot can know yet).
    static func passedKey(_ attachment: AnyChatMessageAttachment) -> String? {
        attachment.fileLink.map { "before-send\n\(SignedLink($0).unsignedURL.absoluteString)" }
    }

    /// What stands for a file whose message was posted, among the judged files: the handlers
    /// of posted messages record it as they start.
    static func postedKey(_ attachment: AnyChatMessageAttachment) -> String? {
        attachment.fileLink.map { "posted\n\(SignedLink($0).unsignedURL.absoluteString)" }
    }

    /// Judges the files of `message`, sent by `sender` to `cid`, under `policy`; `passed`
    /// records each file that passed, and `isPosted` says whether a ``postedKey(_:)`` is recorded.
    static func judgeBeforeSending(
        _ message: Message, from sender: User, in cid: ChannelId, policy: ModerationPolicy, sniffer: FileTypeSniffer,
        context: BeforeSendContext, passed: @escaping @Sendable (String) -> Void, isPosted: @escaping @Sendable (String) -> Bool
    ) async throws -> BeforeSendDecision {
        let files = message.attachments.filter { judgedTypes.contains($0.type) && $0.fileLink != nil }
        guard !files.isEmpty else { return .pass }
        let client = context.client
        let refused: [(AnyChatMessageAttachment, String)] = try await withThrowingTaskGroup(of: (AnyChatMessageAttachment, String?).self) {
            group in
            for attachment in files {
                group.addTask {
                    do {
                        let verdict = try await judge(attachment, policy: policy, sniffer: sniffer, client: client)
                        if verdict?.reason == nil, let key = passedKey(attachment) { passed(key) }
                        return (attachment, verdict?.reason)
                    } catch let error as ChatClientError where error.httpStatus == 404 || error.httpStatus == 410 {
                        return (attachment, "its file is not on the file host (HTTP \(error.httpStatus ?? 404)), so nobody could open it")
                    } catch is CancellationError {
                        throw CancellationError()
                    } catch {
                        context.logger.warning(
                            "\(fileName(attachment)) could not be judged before it was sent (\(error)); it is judged once posted",
                            metadata: ["user": "\(sender.id)"])
                        return (attachment, nil)
                    }
                }
            }
            var refused: [(AnyChatMessageAttachment, String)] = []
            for try await (attachment, reason) in group { if let reason { refused.append((attachment, reason)) } }
            return refused.sorted { $0.0.id.index < $1.0.id.index }
        }
        guard let (first, reason) = refused.first else { return .pass }
        let name = fileName(first)
        context.logger.info("A message was refused before anyone saw it: \(name) \(reason)", metadata: ["user": "\(sender.id)", "channel": "\(cid)"])
        let messageKey = message.id.isEmpty ? "before-send-\(UUID().uuidString.lowercased())" : message.id
        let bot = context.bot
        context.afterAnswering {
            // An answer the service no longer waited for (the bot was stuck past the hook's
            // timeout) refused nothing: the message is posted. Its files stay, for the handlers
            // that judge posted messages to remove it with them, and no notice says it was not
            // posted. Those handlers may have begun (then they said so), or not yet.
            let files = refused.map(\.0)
            if files.contains(where: { postedKey($0).map(isPosted) ?? false }) { return }
            if try await wasPostedAnyway(files, by: sender, in: cid, lookingAs: bot.user.id, client: client) { return }
            try await actOnRefusal(refused, messageKey: messageKey, sender: sender, in: cid, policy: policy, bot: bot, client: client)
        }
        let others = refused.count > 1 ? " (and \(refused.count - 1) more of its files)" : ""
        return .reject("\(name) was not posted: \(reason)\(others).")
    }

    /// What follows a refusal, once it is answered: the refused uploads leave the CDN (no
    /// message will ever link them), and a notice per file says who sent what and why it was
    /// refused; it counts towards `ban_after`, and the last one says when it earned a ban.
    static func actOnRefusal(
        _ refused: [(AnyChatMessageAttachment, String)], messageKey: String, sender: User, in cid: ChannelId, policy: ModerationPolicy,
        bot: Bot, client: ChatClient
    ) async throws {
        for (attachment, _) in refused {
            guard let link = attachment.fileLink else { continue }
            do {
                try await client.deleteUpload(url: link, in: cid, isImage: attachment.type == .image)
            } catch let error as ChatClientError where error.httpStatus == 404 {
                // Not a file of this app's CDN, or already gone.
            }
        }
        let who = sender.name ?? sender.id
        for (attachment, reason) in refused {
            let name = fileName(attachment)
            let ban = try await banIfRepeated(file: name, messageKey: messageKey, offender: sender, in: cid, policy: policy, bot: bot, client: client)
            try await client.sendMessage(
                OutgoingMessage(
                    text: "@\(who): \(name) was not posted because \(reason).\(ban)",
                    extraData: notice(name, reason, messageKey: messageKey, offender: sender.id)),
                to: cid, as: bot.user.id)
        }
    }

    /// Whether a message of `sender` holding one of `files` is in `cid`'s latest messages: the
    /// service let it through because the refusal came too late. `viewer` is the bot's user.
    static func wasPostedAnyway(
        _ files: [AnyChatMessageAttachment], by sender: User, in cid: ChannelId, lookingAs viewer: String, client: ChatClient
    ) async throws -> Bool {
        let links = Set(files.compactMap { $0.fileLink.map { SignedLink($0).unsignedURL } })
        guard !links.isEmpty else { return false }
        let recent = try await client.queryChannel(cid, createdBy: viewer, messageLimit: 50).messages
        return recent.contains { message in
            message.user?.id == sender.id
                && message.attachments.contains { $0.fileLink.map { links.contains(SignedLink($0).unsignedURL) } ?? false }
        }
    }
}
