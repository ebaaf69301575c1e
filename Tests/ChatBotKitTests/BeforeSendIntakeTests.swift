import ChatBotKit
import ChatBotKitTesting
import ChatBotKitWebhooks
import ChatClient
import ChatLocking
import ChatModels
import Crypto
import Foundation
import Logging
import ServiceLifecycle
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Before-send intake: signed requests in, a bot's pass, replacement or refusal out, within the deadline", .timeLimit(.minutes(2)))
struct BeforeSendIntakeTests {
    static let key = "intake-key"
    static let secret = "intake-secret-of-at-least-32-bytes!"
    // The handlers make no call here; the client is only what they are given.
    static let client = ChatClient(
        configuration: ChatClientConfiguration(apiKey: key, baseURL: URL(string: "http://127.0.0.1:9")!, credentials: .apiSecret(secret)))

    static func request(text: String, user: String = "ann", attachments: [RawJSON] = []) -> Data {
        let message: JSONObject = [
            "id": "", "text": .string(text), "type": "regular", "attachments": .array(attachments), "user": ["id": .string(user)],
        ]
        return JSONWriter.data(
            .object([
                "message": .object(message), "user": ["id": .string(user), "role": "user"],
                "channel": ["cid": "messaging:general", "id": "general", "type": "messaging"],
                "request_info": ["type": "client", "ip": "127.0.0.1", "sdk": "stream-chat-python-client-4.33.0", "ext": "device=7"],
            ]))
    }

    static func headers(_ body: Data, secret: String = secret) -> [String: String] {
        let signature = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data(secret.utf8))).map { String(format: "%02x", $0) }.joined()
        return ["x-signature": signature, "x-api-key": key, "content-type": "application/json"]
    }

    static func censor(_ recorder: Recorder<String>) -> Bot {
        let bot = Bot(name: "censor", user: User(id: "censor"))
        bot.beforeSend { message, context in
            recorder.record("\(context.user?.id ?? "?") \(context.channel?.rawValue ?? "?") \(context.requestInfo["ext"]?.stringValue ?? "-"): \(message.text)")
            if message.text.contains("password") { return .reject("Passwords stay out of this channel.") }
            if message.text.contains("darn") { return .replace(text: message.text.replacingOccurrences(of: "darn", with: "d**n")) }
            return .pass
        }
        return bot
    }

    static func answer(_ answer: BeforeSendIntake.Answer) throws -> JSONObject {
        guard case .object(let object) = try JSONParser().parse(answer.body) else { throw BotError(code: .handlerFailed, message: "not an object") }
        return object
    }

    @Test("a pass is {}, a replacement the changed fields, a refusal an error message with the sender's text; a bot's own messages pass unjudged")
    func decisions() async throws {
        let recorder = Recorder<String>()
        let intake = BeforeSendIntake(apiKey: Self.key, apiSecret: Self.secret)
        intake.register(Self.censor(recorder), client: Self.client)
        #expect(intake.botNames == ["censor"])

        let passed = await intake.receive(body: Self.request(text: "hello"), headers: Self.headers(Self.request(text: "hello")))
        #expect(passed.status == 200 && passed.body == Data("{}".utf8))

        let rude = Self.request(text: "darn it")
        let replaced = try Self.answer(await intake.receive(body: rude, headers: Self.headers(rude)))
        #expect(replaced["message"]?["text"]?.stringValue == "d**n it")
        #expect(replaced["message"]?["type"] == nil)

        let secret = Self.request(text: "my password is hunter2")
        let refused = try Self.answer(await intake.receive(body: secret, headers: Self.headers(secret)))
        #expect(refused["message"]?["type"]?.stringValue == "error")
        #expect(refused["message"]?["text"]?.stringValue == "Passwords stay out of this channel.")

        let own = Self.request(text: "my password", user: "censor")
        #expect(await intake.receive(body: own, headers: Self.headers(own)).body == Data("{}".utf8))
        #expect(recorder.all == ["ann messaging:general device=7: hello", "ann messaging:general device=7: darn it", "ann messaging:general device=7: my password is hunter2"])
    }

    @Test("refused, each saying why: no or a wrong signature (401), another app (401), a body that is not a request (400), no bot yet (503)")
    func badRequests() async throws {
        let intake = BeforeSendIntake(apiKey: Self.key, apiSecret: Self.secret)
        let body = Self.request(text: "hi")
        func code(_ answer: BeforeSendIntake.Answer) throws -> String? { try Self.answer(answer)["code"]?.stringValue }

        let noBot = await intake.receive(body: body, headers: Self.headers(body))
        #expect(noBot.status == 503)
        #expect(try code(noBot) == "webhook.no_bot")
        intake.register(Self.censor(Recorder<String>()), client: Self.client)

        var unsigned = Self.headers(body)
        unsigned["x-signature"] = nil
        let missing = await intake.receive(body: body, headers: unsigned)
        #expect(missing.status == 401)
        #expect(try code(missing) == "webhook.signature_missing")

        let forged = await intake.receive(body: body, headers: Self.headers(body, secret: "another-secret-of-at-least-32-bytes"))
        #expect(forged.status == 401)
        #expect(try code(forged) == "webhook.signature_mismatch")

        var otherApp = Self.headers(body)
        otherApp["x-api-key"] = "someone-else"
        #expect(try code(await intake.receive(body: body, headers: otherApp)) == "webhook.api_key_mismatch")

        for garbage in [Data("not json".utf8), Data(#"{"user": {"id": "ann"}}"#.utf8), Data(#"{"message": {"id": "", "text": 7}}"#.utf8)] {
            let answer = await intake.receive(body: garbage, headers: Self.headers(garbage))
            #expect(answer.status == 400)
            #expect(try code(answer) == "webhook.not_a_before_send_request")
        }

        let small = BeforeSendIntake(apiKey: Self.key, apiSecret: Self.secret, maximumBodySize: 64)
        small.register(Self.censor(Recorder<String>()), client: Self.client)
        let large = await small.receive(body: body, headers: Self.headers(body))
        #expect(large.status == 413)
        #expect(try code(large) == "webhook.too_large")
    }

    @Test("the handler sees its deadline; one still running then is cancelled, the message let through in time, and its after-answer work dropped")
    func lateHandler() async throws {
        let recorder = Recorder<String>()
        let bot = Bot(name: "slow", user: User(id: "slow"))
        bot.beforeSend { message, context in
            recorder.record("left \(Int(context.timeRemaining / .milliseconds(100)))")
            context.afterAnswering { recorder.record("after \(message.text)") }
            if message.text == "slow" {
                do {
                    try await Task.sleep(for: .seconds(10))
                } catch {
                    recorder.record("cancelled")
                    throw error
                }
            }
            return .reject("no")
        }
        let intake = BeforeSendIntake(apiKey: Self.key, apiSecret: Self.secret, attemptTimeout: .milliseconds(600), answerMargin: .milliseconds(200))
        intake.register(bot, client: Self.client)
        try await withRunningServices([FollowUpRunner(intake: intake)]) {
            let slow = Self.request(text: "slow")
            let started = ContinuousClock.now
            let answer = await intake.receive(body: slow, headers: Self.headers(slow), receivedAt: started)
            let took = ContinuousClock.now - started
            #expect(answer.body == Data("{}".utf8), "the documented default: let it through")
            #expect(took >= .milliseconds(350) && took < .milliseconds(600), "answered at the deadline (400 ms), before the service's 600: \(took)")
            try await recorder.wait { $0.contains("cancelled") }

            let quick = Self.request(text: "quick")
            #expect(try Self.answer(await intake.receive(body: quick, headers: Self.headers(quick)))["message"]?["type"]?.stringValue == "error")
            try await recorder.wait { $0.contains("after quick") }
        }
        #expect(recorder.all.first == "left 3" || recorder.all.first == "left 4")
        #expect(!recorder.all.contains("after slow"))
    }

    @Test("over HTTP: the webhook server takes it at its own path and refuses a body over the limit before reading it all")
    func overHTTP() async throws {
        let intake = BeforeSendIntake(apiKey: Self.key, apiSecret: Self.secret, maximumBodySize: 4096)
        intake.register(Self.censor(Recorder<String>()), client: Self.client)
        let server = WebhookServer(intake: WebhookIntake(apiKey: Self.key, apiSecret: Self.secret), port: 0, beforeSend: intake)
        try await withRunningServices([server]) {
            let url = try #require(try await server.beforeSendURL().flatMap(URL.init(string:)))
            #expect(url.path == "/before-send")
            func post(_ body: Data) async throws -> (Int, String) {
                var request = URLRequest(url: url)
                request.httpMethod = "POST"
                request.httpBody = body
                for (name, value) in Self.headers(body) { request.setValue(value, forHTTPHeaderField: name) }
                let (data, response) = try await URLSession.shared.data(for: request)
                return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
            }
            let secret = Self.request(text: "password?")
            let (status, text) = try await post(secret)
            #expect(status == 200 && text.contains("Passwords stay out of this channel."))
            let huge = Self.request(text: String(repeating: "a", count: 10_000))
            let (tooLarge, refusal) = try await post(huge)
            #expect(tooLarge == 413 && refusal.contains("webhook.too_large"))
        }
    }
}

/// Runs an intake's after-answer work, as ``WebhookServer`` does, for tests without one.
struct FollowUpRunner: Service {
    let intake: BeforeSendIntake
    func run() async throws { await intake.runFollowUps() }
}
