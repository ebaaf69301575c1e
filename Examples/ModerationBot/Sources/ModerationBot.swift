import ChatBotKitConfiguration
import ChatBotKit
import ChatClient
import ChatModels
import FileSniffing
import Foundation
import Logging
import Synchronization

/// The file moderator: every uploaded file in its channels is checked against the channel's
/// policy (extensions, MIME types, size, and with `sniff_content` the real type read from the
/// bytes), and a file that breaks it is deleted with a notice, flagged, or noticed. The files an
/// edit adds are judged too, so an edit cannot add what a new message may not carry. Files from
/// `trusted_users` (the other bots of a bots.yaml, whose reports are JSON, CSV or SVG) and from
/// the moderator itself are not judged. With `ban_after`, a sender whose files break the policy
/// that many times is banned from the channel (counted from the notices, so across restarts).
/// `moderators` may remove any message, files and all, by reacting to it with the
/// `removal_reaction` (`remove` by default); the author is told who removed it. With
/// `check: before_send` in a policy, its channels' files are judged before anyone sees them
/// (see `ModerationBot+BeforeSend.swift`).
public enum ModerationBot: BotKind {
    /// `kind: moderation`.
    public static let name = "moderation"

    /// The attachment types whose files are judged.
    static let judgedTypes: [AttachmentType] = [.file, .image, .video, .audio, .voiceRecording]

    /// A file to judge.
    public static let samples = [BotKindSample("--file some.pdf")]

    /// Builds the bot from its entry: `policy:` for all its channels, `channel_policies:` per
    /// channel, `trusted_users:` whose files are not judged, `moderators:` who remove messages
    /// by reacting with `removal_reaction:`.
    public static func makeBot(_ entry: BotsConfiguration.BotEntry, environment: BotKindEnvironment) throws -> Bot {
        try entry.node.allowOnly(
            BotsConfiguration.commonBotKeys + ["policy", "channel_policies", "trusted_users", "moderators", "removal_reaction"])
        let policy = try entry.node["policy"].map(ModerationPolicy.init(node:)) ?? ModerationPolicy()
        let trustedUsers = try entry.node["trusted_users"].map { try Set($0.strings()) } ?? []
        let moderators = try entry.node["moderators"].map { try Set($0.strings()) } ?? []
        let removalReaction = try entry.node["removal_reaction"]?.string() ?? "remove"
        if let node = entry.node["removal_reaction"] {
            guard !removalReaction.isEmpty, removalReaction.count <= 30 else {
                throw node.error(.badValue, "removal_reaction must be a reaction type of 1 to 30 characters, found \"\(removalReaction)\"")
            }
            guard !moderators.isEmpty else { throw node.error(.badValue, "removal_reaction needs moderators, the users whose reaction removes a message") }
        }
        var overrides: [ChannelId: ModerationPolicy] = [:]
        if let perChannel = entry.node["channel_policies"] {
            for (key, node) in try perChannel.mapping() {
                guard let cid = try? ChannelId(cid: key) else {
                    throw node.error(.badValue, "\"\(key)\" is not a channel id (type:id)")
                }
                overrides[cid] = try ModerationPolicy(node: node)
            }
        }
        return try make(
            name: entry.name, user: User(id: entry.user, name: "Moderator"), policy: policy, channelPolicies: overrides,
            trustedUsers: trustedUsers, moderators: moderators, removalReaction: removalReaction,
            beforeSendChannels: Set(entry.channels).union(overrides.keys))
    }

    /// The bot with its handlers; files posted by `trustedUsers` are not judged (nor the bot's
    /// own, as no bot handles its own messages); a `removalReaction` of one of `moderators`
    /// removes the message it is on. The app's Before Message Send hook asks about every
    /// channel of the app: with `beforeSendChannels`, only messages to those are judged there
    /// (nil judges every channel's).
    public static func make(
        name: String, user: User, policy: ModerationPolicy, channelPolicies: [ChannelId: ModerationPolicy] = [:], trustedUsers: Set<String> = [],
        moderators: Set<String> = [], removalReaction: String = "remove", beforeSendChannels: Set<ChannelId>? = nil
    ) throws -> Bot {
        let sniffer = try FileTypeSniffer()
        let bot = Bot(name: name, user: user)
        // Without this, the default bots.yaml deleted the archive bot's `/archive` answer: its
        // manifest is JSON, which the channel's policy does not allow from members. Only when
        // needed: a bot without middleware routes each message directly.
        if !trustedUsers.isEmpty { bot.use(TrustedUsers(ids: trustedUsers)) }
        let judged = judgedTypes
        // The files judged, per message, by their unsigned link (a re-read message signs its
        // links again): an edit judges only the files it added, so an edit of the text neither
        // downloads the files again nor repeats a notice or a flag. A file that could not be
        // judged is not recorded, and the next edit tries it again.
        let judgedFiles = Mutex(RecentKeys(capacity: 20_000))
        for type in judged {
            bot.on(type) { attachment, context in
                let channelPolicy = channelPolicies[context.channel.cid] ?? policy
                // What passed before it was sent is not judged again; what could not be judged
                // in time then (or while the bot was away) is judged now, as without before_send.
                if channelPolicy.check == .beforeSend, let key = passedKey(attachment), judgedFiles.withLock({ $0.contains(key) }) { return }
                // Posted: a refusal of it answered too late has nothing to act on.
                if let key = postedKey(attachment) { judgedFiles.withLock { _ = $0.insert(key) } }
                try await inspect(attachment, policy: channelPolicy, sniffer: sniffer, context: context)
                if let key = judgedKey(attachment, of: context.message) { judgedFiles.withLock { _ = $0.insert(key) } }
            }
        }
        // An edit can add a file to a message that passed. One file that cannot be judged does
        // not stop the others from being judged.
        bot.onMessageUpdated { context in
            let channelPolicy = channelPolicies[context.channel.cid] ?? policy
            var firstError: (any Error)?
            for attachment in context.message.attachments where judged.contains(attachment.type) {
                let key = judgedKey(attachment, of: context.message)
                if let key, judgedFiles.withLock({ $0.contains(key) }) { continue }
                do {
                    try await inspect(attachment, policy: channelPolicy, sniffer: sniffer, context: context)
                    if let key { judgedFiles.withLock { _ = $0.insert(key) } }
                } catch {
                    firstError = firstError ?? error
                }
            }
            if let firstError { throw firstError }
        }
        if ([policy] + Array(channelPolicies.values)).contains(where: { $0.check == .beforeSend }) {
            bot.beforeSend { message, context in
                guard let cid = context.channel, beforeSendChannels?.contains(cid) ?? true else { return .pass }
                guard let sender = context.user ?? message.user, !trustedUsers.contains(sender.id) else { return .pass }
                let channelPolicy = channelPolicies[cid] ?? policy
                guard channelPolicy.check == .beforeSend else { return .pass }
                return try await judgeBeforeSending(
                    message, from: sender, in: cid, policy: channelPolicy, sniffer: sniffer, context: context,
                    passed: { key in judgedFiles.withLock { _ = $0.insert(key) } },
                    isPosted: { key in judgedFiles.withLock { $0.contains(key) } })
            }
        }
        if !moderators.isEmpty {
            bot.onReaction(removalReaction) { reaction, context in
                guard let moderator = reaction.userId, moderators.contains(moderator) else { return }
                try await removeOnRequest(of: reaction.user ?? User(id: moderator), context: context)
            }
        }
        return bot
    }

    /// Removes the message a moderator reacted to, with its files, and tells its author.
    static func removeOnRequest(of moderator: User, context: BotContext) async throws {
        let message = context.message
        do {
            try await context.delete(hard: true)
        } catch let error as ChatClientError where error.httpStatus == 404 {
            return  // already gone (the reaction was delivered again, or another moderator was quicker)
        }
        for attachment in message.attachments {
            guard let link = attachment.fileLink else { continue }
            do {
                try await deleteUpload(attachment, at: link, context: context)
            } catch let error as ChatClientError where error.httpStatus == 404 {
                // A link to a file elsewhere, or already deleted.
            }
        }
        let author = message.user?.name ?? message.user?.id ?? "someone"
        context.logger.info("Message removed at a moderator's request", metadata: ["moderator": "\(moderator.id)", "user": "\(author)"])
        try await context.reply(text: "@\(author): a message of yours was removed by \(moderator.name ?? moderator.id), a moderator.")
    }

    /// Deletes an attachment's uploaded file from the CDN, through the endpoint of its kind.
    static func deleteUpload(_ attachment: AnyChatMessageAttachment, at link: URL, context: BotContext) async throws {
        if attachment.type == .image { try await context.deleteImage(url: link) } else { try await context.deleteFile(url: link) }
    }

    /// What identifies a judged file: its message and its link without the signature.
    static func judgedKey(_ attachment: AnyChatMessageAttachment, of message: Message) -> String? {
        attachment.fileLink.map { "\(message.id)\n\(SignedLink($0).unsignedURL.absoluteString)" }
    }

    /// Checks one attachment and acts on a violation.
    static func inspect(_ attachment: AnyChatMessageAttachment, policy: ModerationPolicy, sniffer: FileTypeSniffer, context: BotContext)
        async throws
    {
        guard let link = attachment.fileLink,
            let verdict = try await judge(attachment, policy: policy, sniffer: sniffer, client: context.client)
        else { return }
        let name = verdict.name
        guard let reason = verdict.reason else {
            context.logger.debug("File passed the policy", metadata: ["file": "\(name)", "sniffed": "\(verdict.sniffedMimeType ?? "-")"])
            return
        }
        let sender = context.message.user?.name ?? context.message.user?.id ?? "someone"
        context.logger.info("File breaks the policy: \(reason)", metadata: ["file": "\(name)", "user": "\(sender)"])
        let fields = notice(name, reason, messageKey: context.message.id, offender: context.message.user?.id)
        switch policy.action {
        case .deleteAndNotify:
            do {
                try await context.delete(hard: true)
            } catch let error as ChatClientError where error.httpStatus == 404 {
                // Another attachment of the same message already had it removed.
            }
            try await deleteUpload(attachment, at: link, context: context)
            let ban = try await banIfRepeated(file: name, policy: policy, context: context)
            try await context.reply(text: "@\(sender): \(name) was removed because \(reason).\(ban)", extraData: fields)
        case .flag:
            try await context.flag(reason: "\(name): \(reason)")
        case .notify:
            let ban = try await banIfRepeated(file: name, policy: policy, context: context)
            try await context.reply(text: "@\(sender): \(name) breaks this channel's file policy: \(reason).\(ban)", extraData: fields)
        }
    }

    /// Bans the message's sender when this file brings their files against the policy to
    /// `banAfter` (see ``banIfRepeated(file:messageKey:offender:in:policy:bot:client:)``).
    static func banIfRepeated(file: String, policy: ModerationPolicy, context: BotContext) async throws -> String {
        guard let offender = context.message.user else { return "" }
        return try await banIfRepeated(
            file: file, messageKey: context.message.id, offender: offender, in: context.channel.cid, policy: policy, bot: context.bot,
            client: context.client)
    }
}
