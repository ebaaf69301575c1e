import ChatBotKitWebhooks
import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatLocking
import ChatDevServer
import ChatModels
import Crypto
import Foundation
import Logging
import ServiceLifecycle
import Testing

@Suite("Custom commands: a bot answers /name before anything is posted, and the buttons of its answer", .timeLimit(.minutes(2)))
struct CustomCommandTests {
    /// The support-ticket command of Stream's guide: asks before opening (ephemeral, with
    /// buttons), opens on Open (posted, with the ticket as a file), drops on Cancel, refuses an
    /// empty description.
    static func helpdesk(_ recorder: Recorder<String>, ticketFile: URL) -> Bot {
        let bot = Bot(name: "helpdesk")
        bot.customCommand("ticket", description: "Open a support ticket", arguments: "[description]") { request in
            recorder.record("\(request.user?.id ?? "?"): /\(request.command) \(request.arguments) \(request.formData)")
            switch request.formData["action"] {
            case "open":
                let file = try AnyAttachmentPayload(localFileURL: ticketFile, attachmentType: .file)
                return .post(text: "Ticket opened: \(request.arguments)", attachments: [file])
            case "cancel":
                return .remove
            default:
                guard !request.arguments.isEmpty else { return .error("Say what the ticket is about: /ticket my laptop broke") }
                if request.arguments == "crash" { throw BotError(code: .handlerFailed, message: "the ticket system is down") }
                return .ephemeral(
                    text: "Open a ticket about \"\(request.arguments)\"?",
                    buttons: [.button("Open", value: "open", style: "primary"), .button("Cancel", value: "cancel")])
            }
        }
        return bot
    }

    @Test("/ticket reaches the bot before anything is posted; Open posts its answer with an uploaded file, Cancel drops it, errors reach the sender")
    func ticketFlow() async throws {
        let scratch = try ScratchFolder("ticket")
        let file = try scratch.write(Data("printer on fire\n".utf8), as: "ticket.txt")
        defer { try? FileManager.default.removeItem(at: file) }
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let recorder = Recorder<String>()
            try await server.withCustomCommands { commands in
                var configuration = TestChatServer.testBotConfiguration
                configuration.commands = commands
                try await server.withBot(Self.helpdesk(recorder, ticketFile: file), channels: ["messaging:general"], configuration: configuration) { _ in
                    // Set up at start: the command exists and the channel's type offers it.
                    let admin = server.client(as: "admin")
                    #expect(try await admin.commands().contains(ChatCommand(name: "ticket", description: "Open a support ticket", arguments: "[description]")))
                    #expect(try await admin.commandNames(ofChannelType: .messaging) == ["ticket"])
                    #expect(commands.commandNames == ["ticket"])

                    // Sent: only Ann sees the question, with its buttons; nothing is posted.
                    let question = try await ann.send(text: "/ticket printer on fire")
                    #expect(question.type == .ephemeral)
                    #expect(question.text == "Open a ticket about \"printer on fire\"?")
                    let actions = question.attachments.first?.rawJSON["actions"]?.arrayValue?.compactMap { $0["value"]?.stringValue }
                    #expect(actions == ["open", "cancel"])
                    await #expect(throws: ChatClientError.self) { try await admin.getMessage(question.id) }

                    // Open: posted for everyone as the bot rewrote it, the file uploaded first.
                    let posted = try #require(try await ann.client.runMessageAction(question.id, formData: ["action": "open"]))
                    #expect(posted.type == .regular)
                    #expect(posted.text == "Ticket opened: printer on fire")
                    #expect(posted.command == "ticket")
                    let attachment = try #require(posted.attachments.first)
                    #expect(attachment.type == .file)
                    let link = try #require(attachment.rawJSON["asset_url"]?.stringValue)
                    #expect(link.hasPrefix(server.baseURL.absoluteString))
                    #expect(try await admin.getMessage(question.id).text == "Ticket opened: printer on fire")

                    // Cancel: the question goes away, nothing posted.
                    let second = try await ann.send(text: "/ticket coffee machine")
                    #expect(try await ann.client.runMessageAction(second.id, formData: ["action": "cancel"]) == nil)
                    await #expect(throws: ChatClientError.self) { try await admin.getMessage(second.id) }

                    // Refused by the bot, and a handler that throws: the sender reads why in place of the message.
                    let empty = await #expect(throws: ChatClientError.self) { try await ann.send(text: "/ticket") }
                    #expect(empty?.code == .messageRefused)
                    #expect(empty?.message.contains("Say what the ticket is about: /ticket my laptop broke") == true)
                    let crash = await #expect(throws: ChatClientError.self) { try await ann.send(text: "/ticket crash") }
                    #expect(crash?.message.contains("The /ticket command failed; the bot logged why.") == true)
                }
                // Stopped: the command is no longer answered by it.
                #expect(commands.commandNames == [])
                let unanswered = await #expect(throws: ChatClientError.self) { try await ann.send(text: "/ticket anyone?") }
                #expect(unanswered?.message.contains("No bot answers /ticket here.") == true)
            }
            #expect(
                recorder.all == [
                    "ann: /ticket printer on fire [:]", "ann: /ticket printer on fire [\"action\": \"open\"]", "ann: /ticket coffee machine [:]",
                    "ann: /ticket coffee machine [\"action\": \"cancel\"]", "ann: /ticket  [:]", "ann: /ticket crash [:]",
                ])
            // The channel type still offers /ticket, but the app has no handler any more: refused, with why.
            let orphan = await #expect(throws: ChatClientError.self) { try await ann.send(text: "/ticket by hand") }
            #expect(orphan?.message.contains("/ticket is a custom command, and the app has no custom_action_handler_url to answer it.") == true)
        }
    }

    @Test("a reconfigured bot answers its commands with its new handlers, and the commands it gained or dropped follow")
    func reconfiguredCommands() async throws {
        @Sendable func greeter(_ greeting: String, extra: Bool) -> Bot {
            let bot = Bot(name: "greeter")
            bot.customCommand("greet", description: "Say hello") { _ in .post(text: greeting) }
            if extra { bot.customCommand("wave", description: "Wave") { _ in .post(text: "👋") } }
            return bot
        }
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withCustomCommands { commands in
                var configuration = TestChatServer.testBotConfiguration
                configuration.commands = commands
                try await server.withBot(greeter("hello", extra: false), channels: ["messaging:general"], configuration: configuration) { running in
                    #expect(try await ann.send(text: "/greet").text == "hello")
                    try await running.service.reconfigure { greeter("good morning", extra: true) }
                    #expect(try await ann.send(text: "/greet").text == "good morning")
                    #expect(commands.commandNames == ["greet", "wave"])
                    #expect(try await server.client(as: "admin").commandNames(ofChannelType: .messaging) == ["greet", "wave"])
                    #expect(try await ann.send(text: "/wave").text == "👋")

                    try await running.service.reconfigure { greeter("hi", extra: false) }
                    #expect(commands.commandNames == ["greet"])
                    let dropped = await #expect(throws: ChatClientError.self) { try await ann.send(text: "/wave") }
                    #expect(dropped?.message.contains("No bot answers /wave here.") == true)
                }
            }
        }
    }

    @Test("a bot restarted (stopped, then started as a new service, as a reload does for a new user) takes its commands off the intake and registers them again")
    func restartedCommands() async throws {
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withCustomCommands { commands in
                var configuration = TestChatServer.testBotConfiguration
                configuration.commands = commands
                func greeter(_ greeting: String, user: String) -> BotService {
                    let bot = Bot(name: "greeter", user: User(id: user))
                    bot.customCommand("greet", description: "Say hello") { _ in .post(text: greeting) }
                    return BotService(bot: bot, client: server.client(as: user), channels: ["messaging:general"], configuration: configuration)
                }
                let runner = BotRunner(services: [greeter("hello", user: "greeter-bot")])
                let group = ServiceGroup(configuration: .init(services: [runner], logger: Logger(label: "test.runner")))
                let running = Task { try await group.run() }
                try await runner.waitUntilReady()
                #expect(try await ann.send(text: "/greet").text == "hello")

                #expect(await runner.stop(botNamed: "greeter"))
                #expect(commands.commandNames == [])
                let unanswered = await #expect(throws: ChatClientError.self) { try await ann.send(text: "/greet") }
                #expect(unanswered?.message.contains("No bot answers /greet here.") == true)

                try await runner.start(greeter("good morning", user: "greeter-bot-2"))
                #expect(commands.commandNames == ["greet"])
                #expect(try await ann.send(text: "/greet").text == "good morning")
                #expect(try await server.client(as: "admin").commandNames(ofChannelType: .messaging) == ["greet"])

                await group.triggerGracefulShutdown()
                try await running.value
                #expect(commands.commandNames == [])
            }
        }
    }

    @Test("a handler slower than the intake's deadline: the sender is told at the deadline, the handler is cancelled, one that ignores it is not waited for")
    func slowHandlers() async throws {
        let recorder = Recorder<String>()
        let bot = Bot(name: "slowpoke")
        bot.customCommand("slow", description: "Sleeps") { _ in
            do {
                try await Task.sleep(for: .seconds(30))
            } catch {
                recorder.record("slow cancelled")
                throw error
            }
            return .post(text: "slept")
        }
        // Ends when the test lets it (or after 20 s, so that an intake that waited for it would
        // fail the test instead of hanging it): an answer before that came at the deadline,
        // however slowly a loaded machine runs the timer.
        let stubbornEnd = Locked<CheckedContinuation<Void, Never>?>(nil)
        let endStubborn: @Sendable () -> Void = { stubbornEnd.withLock { waiting in defer { waiting = nil }; return waiting }?.resume() }
        bot.customCommand("stubborn", description: "Ignores cancellation") { _ in
            await withCheckedContinuation { continuation in
                stubbornEnd.withLock { $0 = continuation }
                DispatchQueue.global().asyncAfter(deadline: .now() + 20) { endStubborn() }
            }
            recorder.record("stubborn finished")
            return .post(text: "finished")
        }
        bot.customCommand("quick", description: "Answers") { _ in .post(text: "quick") }
        try await TestChatServer.withServer { server in
            let intake = CustomCommandIntake(apiKey: server.apiKey, apiSecret: server.apiSecret, answerDeadline: .milliseconds(300))
            try intake.register(bot.customCommands, bot: "slowpoke", client: server.client(as: "slowpoke"))
            func send(_ command: String) async throws -> (JSONObject, Duration) {
                let body = Data(#"{"message":{"id":"m-\#(command)","text":"/\#(command)","command":"\#(command)","args":"","cid":"messaging:general"},"user":{"id":"ann"}}"#.utf8)
                let signature = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data(server.apiSecret.utf8)))
                let start = ContinuousClock.now
                let answer = await intake.receive(body: body, headers: ["X-Signature": HexDigits.string(signature)])
                #expect(answer.status == 200)
                return (try #require(try JSONParser().parse(answer.body)["message"]?.objectValue), ContinuousClock.now - start)
            }
            let (slow, slowTook) = try await send("slow")
            #expect(slow["type"]?.stringValue == "error")
            #expect(slow["text"]?.stringValue == "The /slow command took too long to answer; try again.")
            #expect(slowTook >= .milliseconds(300) && slowTook < .seconds(5), "\(slowTook)")
            try await recorder.wait { $0.contains("slow cancelled") }

            let (stubborn, _) = try await send("stubborn")
            #expect(stubborn["text"]?.stringValue == "The /stubborn command took too long to answer; try again.")
            #expect(!recorder.all.contains("stubborn finished"), "answered at the deadline, not when the handler ended")
            endStubborn()
            try await recorder.wait { $0.contains("stubborn finished") }

            let (quick, _) = try await send("quick")
            #expect(quick["type"]?.stringValue == "regular" && quick["text"]?.stringValue == "quick")
        }
    }

    @Test("two bots cannot answer one custom command; a bot registers its own again freely")
    func oneHandlerPerCommand() async throws {
        try await TestChatServer.withServer { server in
            let intake = CustomCommandIntake(apiKey: server.apiKey, apiSecret: server.apiSecret)
            let first = Self.helpdesk(Recorder<String>(), ticketFile: URL(fileURLWithPath: "/nonexistent"))
            try intake.register(first.customCommands, bot: "helpdesk", client: server.client(as: "helpdesk"))
            try intake.register(first.customCommands, bot: "helpdesk", client: server.client(as: "helpdesk"))
            let clash = #expect(throws: BotError.self) { try intake.register(first.customCommands, bot: "other", client: server.client(as: "other")) }
            #expect(clash?.code == .configuration)
            #expect(clash?.message == "bots helpdesk and other both answer the custom command /ticket; a command has one handler, so rename one")
            intake.unregister(bot: "helpdesk")
            #expect(intake.commandNames == [])

            // Posted with no attachments of its own: a button keeps what the preview showed, not the buttons.
            let confirm = Bot(name: "confirmer")
            confirm.customCommand("confirm", description: "Confirm") { _ in .post() }
            try intake.register(confirm.customCommands, bot: "confirmer", client: server.client(as: "confirmer"))
            let request = Data(
                #"{"message":{"id":"m1","text":"Sure?","type":"ephemeral","command":"confirm","args":"","attachments":[{"type":"workout","workout-type":"run"},{"type":"text","actions":[{"name":"action","value":"yes"}]}]},"form_data":{"action":"yes"}}"#
                    .utf8)
            let signature = HMAC<SHA256>.authenticationCode(for: request, using: SymmetricKey(data: Data(server.apiSecret.utf8)))
            let answer = await intake.receive(body: request, headers: ["X-Signature": signature.map { String(format: "%02x", $0) }.joined()])
            let message = try JSONParser().parse(answer.body)["message"]
            #expect(message?["type"]?.stringValue == "regular")
            #expect(message?["attachments"]?.arrayValue?.compactMap { $0["type"]?.stringValue } == ["workout"])
        }
    }

    @Test("each bad request gets its refusal; a command no bot answers gets the sender an error message")
    func badRequests() async throws {
        let intake = CustomCommandIntake(apiKey: "key", apiSecret: "secret")
        func sign(_ body: Data, secret: String = "secret") -> String {
            HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data(secret.utf8))).map { String(format: "%02x", $0) }.joined()
        }
        func answer(_ body: Data, _ headers: [String: String]) async throws -> (Int, RawJSON) {
            let answer = await intake.receive(body: body, headers: headers)
            return (answer.status, try JSONParser().parse(answer.body))
        }
        let request = Data(#"{"message":{"id":"m1","text":"/nope","command":"nope","args":"","custom":7},"user":{"id":"ann"}}"#.utf8)

        let (unsigned, unsignedBody) = try await answer(request, [:])
        #expect(unsigned == 401 && unsignedBody["code"]?.stringValue == "webhook.signature_missing")
        let (forged, forgedBody) = try await answer(request, ["X-Signature": sign(request, secret: "other")])
        #expect(forged == 401 && forgedBody["code"]?.stringValue == "webhook.signature_mismatch")
        let (otherApp, otherAppBody) = try await answer(request, ["X-Signature": sign(request), "X-Api-Key": "another-key"])
        #expect(otherApp == 401 && otherAppBody["code"]?.stringValue == "webhook.api_key_mismatch")
        let notARequest = Data(#"{"type":"message.new"}"#.utf8)
        let (bad, badBody) = try await answer(notARequest, ["X-Signature": sign(notARequest)])
        #expect(bad == 400 && badBody["code"]?.stringValue == "webhook.not_a_command_request")
        let large = CustomCommandIntake(apiKey: "key", apiSecret: "secret", maximumBodySize: 16)
        #expect(await large.receive(body: request, headers: ["X-Signature": sign(request)]).status == 413)

        // Signed, for a command no bot answers: the sender is told, the rest of the message kept.
        let (unknown, unknownBody) = try await answer(request, ["x-signature": sign(request)])
        #expect(unknown == 200)
        #expect(unknownBody["message"]?["type"]?.stringValue == "error")
        #expect(unknownBody["message"]?["text"]?.stringValue == "No bot answers /nope here.")
        #expect(unknownBody["message"]?["custom"] == .number(JSONNumber(7)))
    }
}
