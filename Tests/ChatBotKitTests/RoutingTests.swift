import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Logging
import Testing

@Suite("Routing by attachment type, command, predicate and middleware")
struct RoutingTests {
    @Test("a message with several attachment types reaches every matching route, once per matching attachment")
    func multipleAttachments() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "router")
            bot.on(PollPayload.self) { poll, _ in recorder.record("poll:\(poll.question):\(poll.options.count)") }
            bot.on(.image) { image, _ in recorder.record("image:\(image.rawJSON["title"]?.stringValue ?? "?")") }
            bot.on(.file) { _, _ in recorder.record("file") }
            bot.onUnknownAttachment { attachment, _ in recorder.record("unknown:\(attachment.type.rawValue)") }
            bot.onMessage { context in recorder.record("message:\(context.message.attachments.count)") }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                try await ann.send(attachments: [
                    AnyAttachmentPayload(payload: AttachmentFixtures.image(title: "cat.png")),
                    AnyAttachmentPayload(payload: PollPayload(question: "Lunch?", options: ["pizza", "soup"])),
                    AnyAttachmentPayload(payload: AttachmentFixtures.file()),
                    AnyAttachmentPayload(payload: PollPayload(question: "Dinner?", options: ["rice"])),
                    AnyAttachmentPayload(json: AttachmentFixtures.custom("sticker", ["sticker_id": "wave"])),
                ])
                try await recorder.wait { $0.contains("message:5") }
            }
            #expect(recorder.all == ["image:cat.png", "poll:Lunch?:2", "file", "poll:Dinner?:1", "unknown:sticker", "message:5"])
        }
    }

    @Test("a link in a message reaches the link-preview route with the page's preview; a reply's link gets one unless skipEnrichURL")
    func linkPreviews() async throws {
        let site: [String: TestWebPages.Page] = [
            "/run": .openGraph(["og:title": "Sunday long run", "og:site_name": "RunLog", "og:image": "/run.jpg"]),
            "/results": .openGraph(["og:title": "Results"]),
        ]
        try await TestWebPages.withPages(site) { pages in
            try await TestChatServer.withServer { server in
                let bot = Bot(name: "links")
                bot.on(LinkAttachmentPayload.self) { preview, context in
                    let results = pages.url("/results").absoluteString
                    try await context.reply(text: "\(preview.payload.title ?? "?") from \(preview.payload.author ?? "?"): \(results)")
                    try await context.reply(text: "again without a preview: \(results)", skipEnrichURL: true)
                }
                let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
                try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                    let sent = try await ann.send(text: "my run: \(pages.url("/run").absoluteString)")
                    let replies = try await ann.replies(to: sent, from: bot.user.id, count: 2)
                    #expect(replies.map(\.text) == [
                        "Sunday long run from RunLog: \(pages.url("/results").absoluteString)",
                        "again without a preview: \(pages.url("/results").absoluteString)",
                    ])
                    #expect(replies.map(\.attachmentCounts) == [[.linkPreview: 1], [:]])
                    #expect(replies.first?.attachments(payloadType: LinkAttachmentPayload.self).first?.payload.title == "Results")
                }
            }
        }
    }

    @Test("an attachment that does not decode reaches onDecodingFailure naming the field; the others still reach their routes")
    func decodingFailure() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "router")
            bot.on(PollPayload.self) { poll, _ in recorder.record("poll:\(poll.question)") }
            bot.on(.image) { _, _ in recorder.record("image") }
            bot.onDecodingFailure { failure, _ in recorder.record("failure:\(failure.type.rawValue):\(failure.fieldPath)") }
            bot.onMessage { _ in recorder.record("message") }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                try await ann.send(attachments: [
                    AnyAttachmentPayload(json: AttachmentFixtures.custom("poll", ["question": "Lunch?", "options": ["a"], "votes": "many"])),
                    AnyAttachmentPayload(json: AttachmentFixtures.custom("poll", ["options": ["a"]])),
                    AnyAttachmentPayload(payload: AttachmentFixtures.image()),
                ])
                try await recorder.wait { $0.contains("message") }
            }
            #expect(recorder.all == ["failure:poll:votes", "failure:poll:question", "image", "message"])
        }
    }

    @Test("commands get their arguments, predicates match, middleware wraps handlers in order and can stop a message")
    func commandsPredicatesMiddleware() async throws {
        struct Trace: BotMiddleware {
            let label: String
            let recorder: Recorder<String>
            func handle(_ message: Message, context: BotContext, next: @Sendable (Message, BotContext) async throws -> Void) async throws {
                recorder.record("\(label)>")
                try await next(message, context)
                recorder.record("<\(label)")
            }
        }
        struct BlockUser: BotMiddleware {
            let userId: String
            func handle(_ message: Message, context: BotContext, next: @Sendable (Message, BotContext) async throws -> Void) async throws {
                guard message.user?.id != userId else { return }
                try await next(message, context)
            }
        }
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "router")
            bot.use(Trace(label: "outer", recorder: recorder))
            bot.use(BlockUser(userId: "mallory"))
            bot.use(Trace(label: "inner", recorder: recorder))
            bot.command("stats") { command, _ in recorder.record("stats:\(command.arguments.joined(separator: ","))") }
            bot.on(where: { $0.text.localizedCaseInsensitiveContains("help") }) { _ in recorder.record("help") }
            bot.onMessage { context in recorder.record("message:\(context.message.text)") }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let mallory = try await TestUser.join(server, id: "mallory", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                try await mallory.send(text: "/stats all")
                try await ann.send(text: "/STATS week run")
                try await recorder.wait { $0.contains("<outer") }
                try await ann.send(text: "Help me")
                try await recorder.wait { $0.filter { $0 == "<outer" }.count == 3 }
            }
            #expect(
                recorder.all == [
                    "outer>", "<outer",  // mallory: stopped by BlockUser, so inner and the handlers never run
                    "outer>", "inner>", "stats:week,run", "message:/STATS week run", "<inner", "<outer",
                    "outer>", "inner>", "help", "message:Help me", "<inner", "<outer",
                ])
        }
    }

    @Test("the bot never handles its own messages, even when its user posts from elsewhere")
    func ownMessagesIgnored() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "echo")
            bot.onMessage { context in
                recorder.record(context.message.text)
                try await context.reply(text: "echo: \(context.message.text)")
            }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                try await server.client(as: "echo").channel("messaging:general").sendMessage(text: "posted as the bot elsewhere")
                let sent = try await ann.send(text: "hello")
                let replies = try await ann.replies(to: sent, from: "echo")
                #expect(replies.map(\.text) == ["echo: hello"])
                // Give a loop (the bot answering its own echo) time to show itself.
                try await Task.sleep(for: .milliseconds(500))
            }
            #expect(recorder.all == ["hello"])
            let messages = try await ann.client.queryChannel("messaging:general", messageLimit: 50).messages
            #expect(messages.filter { $0.user?.id == "echo" }.map(\.text) == ["posted as the bot elsewhere", "echo: hello"])
        }
    }

    @Test("a handler's logger carries the id of the message it handles")
    func loggerCarriesMessageId() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "router")
            bot.onMessage { context in
                recorder.record("\(context.logger[metadataKey: "message_id"].map { "\($0)" } ?? "none") for \(context.message.id)")
            }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let first = try await ann.send(text: "one")
                let second = try await ann.send(text: "two")
                try await recorder.wait { $0.count == 2 }
                #expect(recorder.all == ["\(first.id) for \(first.id)", "\(second.id) for \(second.id)"])
            }
        }
    }
}
