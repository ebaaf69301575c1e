import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatLocking
import ChatModels
import Foundation
import Logging
import Testing

@Suite("Replies and the other ways a bot answers")
struct ReplyTests {
    @Test("reply ids are UUID-shaped and derived from the bot, the message and the reply's position")
    func replyIds() {
        let first = BotContext.replyId(bot: "workout", messageId: "m-1", index: 0)
        #expect(UUID(uuidString: first) != nil)
        #expect(first == BotContext.replyId(bot: "workout", messageId: "m-1", index: 0))
        let others = [
            BotContext.replyId(bot: "workout", messageId: "m-1", index: 1),
            BotContext.replyId(bot: "workout", messageId: "m-2", index: 0),
            BotContext.replyId(bot: "archive", messageId: "m-1", index: 0),
        ]
        #expect(Set(others + [first]).count == 4)
    }

    @Test("handling the same message again (a redelivery after a crash) stores each reply once")
    func repeatedRepliesStoredOnce() async throws {
        try await TestChatServer.withServer { server in
            let bot = Bot(name: "greeter")
            bot.onMessage { context in
                try await context.reply(text: "hello \(context.message.user?.id ?? "?")")
                try await context.reply(text: "and welcome")
            }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let botClient = server.client(as: "greeter")
            try await botClient.upsertUsers([bot.user])
            try await botClient.addMembers(["greeter"], to: "messaging:general")
            let sent = try await ann.send(text: "hi")
            for _ in 0..<3 {
                let context = BotContext(message: sent, channel: botClient.channel("messaging:general"), bot: bot, logger: Logger(label: "test"))
                await bot.handle(sent, context: context)
            }
            let replies = try await ann.replies(to: sent, from: "greeter", count: 2)
            #expect(replies.map(\.text) == ["hello ann", "and welcome"])
            #expect(replies.map(\.id) == [0, 1].map { BotContext.replyId(bot: "greeter", messageId: sent.id, index: $0) })
        }
    }

    @Test("a bot bans the sender from the channel: their next message is refused, and the ban is listed with the bot as its author")
    func banSender() async throws {
        try await TestChatServer.withServer { server in
            let bot = Bot(name: "bouncer")
            bot.onMessage { context in
                if context.message.text.contains("spam") { try await context.banSender(reason: "spam", for: .seconds(60)) }
            }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                _ = try await ann.send(text: "cheap spam here")
                let admin = server.client(as: "admin")
                var bans: [UserBan] = []
                for _ in 0..<200 where bans.isEmpty {
                    bans = try await admin.bannedUsers(in: "messaging:general")
                    if bans.isEmpty { try await Task.sleep(for: .milliseconds(25)) }
                }
                #expect(bans.map { [$0.userId, $0.bannedBy, $0.reason] } == [["ann", "bouncer", "spam"]])
                await #expect {
                    try await ann.send(text: "let me back")
                } throws: { ($0 as? ChatClientError)?.streamCode == 17 }
            }
        }
    }

    @Test("a bot answers in the thread of a channel message (starting it), shown in the channel too when asked, and in the thread a reply came from")
    func threadReplies() async throws {
        try await TestChatServer.withServer { server in
            let bot = Bot(name: "keeper")
            bot.onMessage { context in
                if context.message.parentId != nil {
                    try await context.reply(text: "still in the thread")
                } else {
                    try await context.reply(text: "see the thread", inThread: true)
                    try await context.reply(text: "for everyone", inThread: true, alsoInChannel: true)
                }
            }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let sent = try await ann.send(text: "question")
                try await eventually("the bot answered in the thread") { try await ann.client.replies(to: sent.id).count == 2 }
                let thread = try await ann.client.replies(to: sent.id)
                #expect(thread.map(\.text) == ["see the thread", "for everyone"])
                #expect(thread.allSatisfy { $0.parentId == sent.id && $0.user?.id == "keeper" })
                let channel = try await ann.client.queryChannel(ann.channel).messages.map(\.text)
                #expect(channel == ["question", "for everyone"], "only the reply shown in the channel is there")
                #expect(try await ann.client.getMessage(sent.id).replyCount == 2)

                _ = try await ann.client.sendMessage(OutgoingMessage(text: "and then?", parentId: sent.id), to: ann.channel)
                try await eventually("the bot answered the thread reply in the thread") {
                    try await ann.client.replies(to: sent.id).map(\.text).last == "still in the thread"
                }
                #expect(try await ann.client.queryChannel(ann.channel).messages.map(\.text) == ["question", "for everyone"])
            }
        }
    }

    @Test("a bot pins the message it handles for good and its own reply for a while, as itself, and unpins on request; a pin of no time is refused")
    func pins() async throws {
        try await TestChatServer.withServer { server in
            let bot = Bot(name: "keeper")
            let refusal = Locked<String?>(nil)
            bot.onMessage { context in
                if context.message.text.hasPrefix("unpin ") {
                    let target = try await context.client.getMessage(String(context.message.text.dropFirst(6)))
                    try await context.unpin(target)
                    return
                }
                try await context.pin()
                let reply = try await context.reply(text: "pinned for an hour")
                try await context.pin(reply, for: .seconds(3600))
                do {
                    try await context.pin(reply, for: .zero)
                } catch let error as BotError {
                    refusal.withLock { $0 = error.message }
                }
            }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let sent = try await ann.send(text: "the plan")
                let reply = try #require(try await ann.replies(to: sent, from: "keeper").first)
                var pins: [Message] = []
                try await eventually("both are pinned") {
                    pins = try await ann.client.queryChannel(ann.channel).pinnedMessages
                    return pins.count == 2
                }
                #expect(Set(pins.map(\.id)) == [sent.id, reply.id])
                #expect(pins.allSatisfy { $0.pinnedBy?.id == "keeper" })
                let expiry = try #require(pins.first { $0.id == reply.id }?.pinExpires)
                #expect(abs(expiry.timeIntervalSinceNow - 3600) < 60)
                #expect(pins.first { $0.id == sent.id }?.pinExpires == nil)
                #expect(refusal.withLock { $0 } == "a pin must last longer than zero; leave the duration out to pin for good")
                _ = try await ann.send(text: "unpin \(sent.id)")
                try await eventually("the message is unpinned") {
                    try await ann.client.queryChannel(ann.channel).pinnedMessages.map(\.id) == [reply.id]
                }
            }
        }
    }

    @Test("a bot downloads a posted file, replies with an uploaded file and a custom payload (with progress), and reacts")
    func replyWithFilesAndPayloads() async throws {
        try await TestChatServer.withServer { server in
            let files = try ScratchFolder()
            let progress = Recorder<Double>()
            let bot = Bot(name: "shouter")
            bot.on(.file) { attachment, context in
                let downloaded = try await context.download(attachment, to: files.path("downloaded.txt"))
                let text = try String(contentsOf: downloaded, encoding: .utf8)
                let loud = try files.text(text.uppercased(), named: "loud.txt")
                try await context.reply(
                    text: "louder", attachments: [
                        try AnyAttachmentPayload(localFileURL: loud, attachmentType: .file),
                        AnyAttachmentPayload(payload: PollPayload(question: "Better?", options: ["yes", "no"])),
                    ], progress: { fraction in progress.record(fraction) })
                try await context.react("like")
                try await context.typing(false)
            }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let sent = try await ann.sendFile(try files.text("quiet words", named: "quiet.txt"))
                let reply = try #require(try await ann.replies(to: sent, from: "shouter").first)
                #expect(reply.attachments.map(\.type) == [.file, .poll])
                let uploaded = try await ann.client.download(reply.attachments[0], to: files.path("uploaded.txt"))
                #expect(try String(contentsOf: uploaded, encoding: .utf8) == "QUIET WORDS")
                #expect(reply.attachments(payloadType: PollPayload.self).map(\.question) == ["Better?"])
                #expect(progress.all.last == 1.0)
                #expect(progress.all == progress.all.sorted(), "progress only grows")
                let reacted = try await ann.client.getMessage(sent.id)
                #expect(reacted.reactionCounts["like"] == 1)
                #expect(reacted.latestReactions.map(\.userId) == ["shouter"])
            }
        }
    }

    @Test("a file deleted from the CDN (404) or behind a forged link (403) reaches onError with the status, and the bot goes on")
    func undownloadableFile() async throws {
        try await TestChatServer.withServer { server in
            let files = try ScratchFolder()
            let recorder = Recorder<String>()
            let bot = Bot(name: "reader")
            bot.on(.file) { attachment, context in
                _ = try await context.download(attachment)
                recorder.record("downloaded")
            }
            bot.onError { error, _ in
                let client = error.underlying as? ChatClientError
                recorder.record("error:\(client?.httpStatus ?? 0)")
            }
            bot.onMessage { context in recorder.record("message:\(context.message.text)") }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let channel = ann.client.channel(ann.channel)
                let uploaded = try await channel.uploadAttachment(localFileURL: try files.pdf(), type: .file)
                try await channel.deleteFile(url: uploaded.fileURL)
                try await ann.send(text: "deleted", attachments: [AnyAttachmentPayload(payload: AttachmentFixtures.file(uploaded.fileURL))])
                let forged = server.baseURL.appendingPathComponent("files/nowhere/forged.pdf")
                try await ann.send(text: "forged", attachments: [AnyAttachmentPayload(payload: AttachmentFixtures.file(forged))])
                try await ann.send(text: "next")
                try await recorder.wait { $0.contains("message:next") }
            }
            #expect(recorder.all == ["error:404", "message:deleted", "error:403", "message:forged", "message:next"])
        }
    }
}
