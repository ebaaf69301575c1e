import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Logging
import Prometheus
import Testing

/// A test's own conversation: a name, then an age, then done.
enum SignUp: Conversation {
    case name
    case age(name: String)
}

extension SignUp: Equatable {}

/// One that waits a second at most, and has no cancel command.
private struct Quick: Conversation, Equatable {
    var asked: Int
    static let timeout: Duration = .seconds(1)
    static let cancelCommand: String? = nil
    static let expiredText: String? = "Too late for that one."
}

/// Lets nobody's messages through but those of `allowed`.
private struct OnlyFrom: BotMiddleware {
    let allowed: String
    func handle(_ message: Message, context: BotContext, next: @Sendable (Message, BotContext) async throws -> Void) async throws {
        guard message.user?.id == allowed else { return }
        try await next(message, context)
    }
}

@Suite("Conversations: multi-step exchanges with one person, state saved between turns")
struct ConversationTests {
    /// A bot that starts ``SignUp`` on `/signup` and records every step and every other route.
    private static func signUpBot(recorder: Recorder<String>, name: String = "clerk") -> Bot {
        let bot = Bot(name: name, user: User(id: "\(name)-bot"))
        bot.command("signup") { _, context in
            try await context.startConversation(SignUp.name)
            try await context.reply(text: "Your name?")
        }
        bot.command("help") { _, context in
            recorder.record("help from \(context.message.user?.id ?? "?")")
        }
        bot.onMessage { context in recorder.record("message \(context.message.text)") }
        bot.onConversation(SignUp.self) { step, context in
            let answer = context.message.text
            if CommandInvocation(text: answer) != nil { return .pass }
            switch step {
            case .name:
                recorder.record("name \(answer)")
                try await context.reply(text: "Your age, \(answer)?")
                return .next(.age(name: answer))
            case .age(let name):
                guard let age = Int(answer) else {
                    recorder.record("not an age \(answer)")
                    try await context.reply(text: "\(answer) is not a number. Your age?")
                    return .next(step)
                }
                recorder.record("signed up \(name), \(age)")
                try await context.reply(text: "Welcome, \(name) (\(age)).")
                return .end
            }
        }
        return bot
    }

    @Test(
        "a conversation takes its person's next messages before other routes, step by step, asks again, passes commands on, and ends; others' messages are routed as usual"
    )
    func stepByStep() async throws {
        try await TestChatServer.withServer { server in
            let registry = PrometheusCollectorRegistry()
            let recorder = Recorder<String>()
            let bot = Self.signUpBot(recorder: recorder)
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let bob = try await TestUser.join(server, id: "bob", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"], metricsFactory: PrometheusMetricsFactory(registry: registry)) { _ in
                let start = try await ann.send(text: "/signup")
                #expect(try await ann.replies(to: start, from: "clerk-bot").map(\.text) == ["Your name?"])
                let bobSays = try await bob.send(text: "Bob here")
                try await recorder.wait { $0.contains("message Bob here") }
                let name = try await ann.send(text: "Ann")
                #expect(try await ann.replies(to: name, from: "clerk-bot").map(\.text) == ["Your age, Ann?"])
                let help = try await ann.send(text: "/help")
                try await recorder.wait { $0.contains("help from ann") }
                let wrong = try await ann.send(text: "old")
                #expect(try await ann.replies(to: wrong, from: "clerk-bot").map(\.text) == ["old is not a number. Your age?"])
                let age = try await ann.send(text: "41")
                #expect(try await ann.replies(to: age, from: "clerk-bot").map(\.text) == ["Welcome, Ann (41)."])
                let after = try await ann.send(text: "thanks")
                try await recorder.wait { $0.contains("message thanks") }
                _ = (bobSays, help, after)
                let samples = MetricSamples(registry.emitToString())
                let events = { (event: String) in
                    samples["chatbotkit_bot_conversation_events_total", ["bot": "clerk", "conversation": "SignUp", "event": event]]
                }
                #expect(events("started") == 1)
                #expect(events("answered") == 2, "Ann, then old (asked again)")
                #expect(events("ended") == 1)
            }
            #expect(
                recorder.all == [
                    "message /signup", "message Bob here", "name Ann",
                    // A command is passed on: its own route and the others run, and the conversation waits.
                    "help from ann", "message /help",
                    "not an age old", "signed up Ann, 41", "message thanks",
                ])
            #expect(bot.conversationStore is MemoryConversationStore)
            #expect((bot.conversationStore as? MemoryConversationStore)?.count == 0, "an ended conversation is forgotten")
        }
    }

    @Test("one conversation per person and channel or thread: a thread's conversation takes the thread's answers only")
    func perChannelAndThread() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Self.signUpBot(recorder: recorder)
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let annElsewhere = try await TestUser.join(server, id: "ann", channel: "messaging:other")
            try await server.withBot(bot, channels: ["messaging:general", "messaging:other"]) { _ in
                let root = try await ann.send(text: "a thread")
                let inThread = try await ann.client.sendMessage(
                    OutgoingMessage(text: "/signup", parentId: root.id), to: ann.channel, as: "ann")
                try await recorder.wait { $0.contains("message /signup") }
                _ = inThread
                try await annElsewhere.send(text: "Not an answer: another channel")
                try await ann.send(text: "Not an answer: outside the thread")
                try await recorder.wait { $0.contains("message Not an answer: outside the thread") }
                try await ann.client.sendMessage(OutgoingMessage(text: "Ann", parentId: root.id), to: ann.channel, as: "ann")
                let key = ConversationKey(bot: "clerk", channel: "messaging:general", user: "ann", thread: root.id)
                // The state is saved as the type encodes it, once the turn has returned.
                try await eventually("the thread's conversation waits for the age") {
                    try await bot.conversationStore.conversation(for: key)?.state == .object(["age": .object(["name": "Ann"])])
                }
                #expect(try await bot.conversationStore.conversation(for: key)?.name == "SignUp")
                #expect(try await bot.conversationStore.conversation(for: ConversationKey(bot: "clerk", channel: "messaging:general", user: "ann")) == nil)
            }
            #expect(
                recorder.all == [
                    "message a thread", "message /signup", "message Not an answer: another channel", "message Not an answer: outside the thread",
                    "name Ann",
                ])
        }
    }

    @Test("/cancel ends it with the type's answer; a type without a cancel command gets /cancel as a turn; a late answer gets the type's expiredText and is routed as usual")
    func cancelAndTimeout() async throws {
        try await TestChatServer.withServer { server in
            let registry = PrometheusCollectorRegistry()
            let recorder = Recorder<String>()
            let bot = Self.signUpBot(recorder: recorder)
            bot.command("quick") { _, context in try await context.startConversation(Quick(asked: 0)) }
            bot.onConversation(Quick.self) { quick, context in
                recorder.record("quick turn \(quick.asked): \(context.message.text)")
                return .next(Quick(asked: quick.asked + 1))
            }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"], metricsFactory: PrometheusMetricsFactory(registry: registry)) { _ in
                let start = try await ann.send(text: "/signup")
                _ = try await ann.replies(to: start, from: "clerk-bot")
                let cancel = try await ann.send(text: "/cancel")
                #expect(try await ann.replies(to: cancel, from: "clerk-bot").map(\.text) == ["Cancelled."])
                try await ann.send(text: "Ann")
                try await recorder.wait { $0.contains("message Ann") }

                try await ann.send(text: "/quick")
                try await ann.send(text: "/cancel")
                try await recorder.wait { $0.contains("quick turn 0: /cancel") }
                try await Task.sleep(for: .milliseconds(1_300))
                let late = try await ann.send(text: "too late")
                try await recorder.wait { $0.contains("message too late") }
                #expect(try await ann.replies(to: late, from: "clerk-bot").map(\.text) == ["Too late for that one."], "the type's expiredText")
                let samples = MetricSamples(registry.emitToString())
                #expect(samples["chatbotkit_bot_conversation_events_total", ["bot": "clerk", "conversation": "SignUp", "event": "cancelled"]] == 1)
                #expect(samples["chatbotkit_bot_conversation_events_total", ["bot": "clerk", "conversation": "Quick", "event": "expired"]] == 1)
            }
            #expect(!recorder.all.contains("name Ann"), "a cancelled conversation takes no more answers")
            #expect(!recorder.all.contains { $0.hasPrefix("quick turn 1") }, "an answer after the timeout is no answer")
        }
    }

    @Test("a turn that throws keeps the step; middleware keeps filtered messages from turns; starting one without a handler is an error")
    func failuresAndMiddleware() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "clerk", user: User(id: "clerk-bot"))
            bot.use(OnlyFrom(allowed: "ann"))
            bot.command("quick") { invocation, context in try await context.startConversation(Quick(asked: 0), with: invocation.arguments.first) }
            bot.command("signup") { _, context in
                do {
                    try await context.startConversation(SignUp.name)
                } catch let error as BotError {
                    recorder.record("\(error.code): \(error.message)")
                }
            }
            bot.onConversation(Quick.self) { quick, context in
                if context.message.text == "boom" { throw CancellationError() }
                recorder.record("turn \(quick.asked): \(context.message.text)")
                return .next(Quick(asked: quick.asked + 1))
            }
            bot.onError { error, _ in recorder.record("error") }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let bob = try await TestUser.join(server, id: "bob", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                try await ann.send(text: "/signup")
                try await ann.send(text: "/quick bob")
                try await bob.send(text: "bob's")
                try await ann.send(text: "/quick")
                try await ann.send(text: "boom")
                try await ann.send(text: "again")
                try await recorder.wait { $0.contains { $0.hasPrefix("turn") } }
            }
            let bobs = try #require(try await bot.conversationStore.conversation(for: ConversationKey(bot: "clerk", channel: "messaging:general", user: "bob")))
            #expect(bobs.state == .object(["asked": 0]), "bob's message never reached his conversation: the middleware kept it")
            #expect(
                recorder.all == [
                    "bot.handler_failed: bot clerk has no onConversation(SignUp.self) handler, so no answer would reach the conversation",
                    "error", "turn 0: again",
                ])
        }
    }

    @Test("a message handled again is not an answer twice, nor does its start reset a conversation under way")
    func redeliveredMessages() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Self.signUpBot(recorder: recorder)
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let start = try await ann.send(text: "/signup")
            let name = try await ann.send(text: "Ann")
            let client = server.client(as: "clerk-bot")
            let channel = client.channel("messaging:general")
            let logger = Logger(label: "test")
            for message in [start, name, start, name] {
                await bot.handle(message, context: BotContext(message: message, channel: channel, bot: bot, logger: logger))
            }
            #expect(recorder.all == ["message /signup", "name Ann", "message /signup"])
            let key = ConversationKey(bot: "clerk", channel: "messaging:general", user: "ann")
            let saved = try #require(try await bot.conversationStore.conversation(for: key))
            #expect(saved.state == .object(["age": .object(["name": "Ann"])]), "still waiting for the age")
            #expect(saved.answered == [name.id])

            // What a handler reads of it, and ends.
            let context = BotContext(message: name, channel: channel, bot: bot, logger: logger)
            #expect(try await context.conversation(SignUp.self) == .age(name: "Ann"))
            #expect(try await context.conversation(Quick.self) == nil, "a conversation of another type")
            var corrupt = saved
            corrupt.state = .object(["age": .object(["name": 7])])
            try await bot.conversationStore.save(corrupt)
            let error = await #expect(throws: BotError.self) { try await context.conversation(SignUp.self) }
            #expect(error?.message.hasPrefix("the saved state of conversation SignUp (clerk with ann in messaging:general) does not decode as SignUp: ") == true)
            try await context.endConversation()
            #expect(try await bot.conversationStore.conversation(for: key) == nil)
        }
    }

    @Test("a turn that starts another conversation leaves the new one in place, whatever the turn answers")
    func turnStartsAnother() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Self.signUpBot(recorder: recorder)
            bot.command("quick") { _, context in try await context.startConversation(Quick(asked: 0)) }
            bot.onConversation(Quick.self) { _, context in
                try await context.startConversation(SignUp.name)
                return .end
            }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let channel = server.client(as: "clerk-bot").channel("messaging:general")
            for text in ["/quick", "sign me up"] {
                let message = try await ann.send(text: text)
                await bot.handle(message, context: BotContext(message: message, channel: channel, bot: bot, logger: Logger(label: "test")))
            }
            let saved = try await bot.conversationStore.conversation(for: ConversationKey(bot: "clerk", channel: "messaging:general", user: "ann"))
            #expect(saved?.name == "SignUp")
            #expect(saved?.state == .object(["name": .object([:])]))
        }
    }

    @Test("a file store keeps a conversation across a restart; an unreadable file is set aside; a saved state that no longer fits is forgotten")
    func fileStore() async throws {
        let scratch = try ScratchFolder("conversations")
        let folder = scratch.path("conversations")
        let file = folder.appendingPathComponent("clerk.json")
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let first = Self.signUpBot(recorder: recorder)
            first.conversationStore = FileConversationStore(file: file)
            try await server.withBot(first, channels: ["messaging:general"]) { _ in
                let start = try await ann.send(text: "/signup")
                _ = try await ann.replies(to: start, from: "clerk-bot")
            }
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(text.contains(#""state":{"name":{}}"#), "the file has the step: \(text)")
            let second = Self.signUpBot(recorder: recorder)
            second.conversationStore = FileConversationStore(file: file)
            try await server.withBot(second, channels: ["messaging:general"]) { _ in
                let name = try await ann.send(text: "Ann")
                #expect(try await ann.replies(to: name, from: "clerk-bot").map(\.text) == ["Your age, Ann?"])
            }

            // The type changed between runs: its saved state is forgotten and the message routed as usual.
            let changed = Bot(name: "clerk", user: User(id: "clerk-bot"))
            changed.onMessage { context in recorder.record("routed \(context.message.text)") }
            changed.onConversation(SignUp.self) { _, _ in
                recorder.record("a turn")
                return .end
            }
            let store = FileConversationStore(file: file)
            let key = ConversationKey(bot: "clerk", channel: "messaging:general", user: "ann")
            var saved = try #require(store.conversation(for: key))
            saved.state = .object(["retired": .object([:])])
            try store.save(saved)
            changed.conversationStore = store
            try await server.withBot(changed, channels: ["messaging:general"]) { _ in
                try await ann.send(text: "41")
                try await recorder.wait { $0.contains("routed 41") }
            }
            #expect(!recorder.all.contains("a turn"))
            #expect(store.conversation(for: key) == nil)
        }

        try Data("{not json".utf8).write(to: file)
        let store = FileConversationStore(file: file)
        #expect(store.conversation(for: ConversationKey(bot: "clerk", channel: "messaging:general", user: "ann")) == nil)
        #expect(FileManager.default.fileExists(atPath: file.path + ".unreadable"), "the unreadable file is kept aside to look at")
        try Data(#"{"version":2,"conversations":[]}"#.utf8).write(to: file)
        _ = FileConversationStore(file: file)
        #expect(!FileManager.default.fileExists(atPath: file.path), "a file of another version is set aside too")
    }
}
