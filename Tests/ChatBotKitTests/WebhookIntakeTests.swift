import ChatBotKitWebhooks
import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Crypto
import Foundation
import Prometheus
import Testing

@Suite("Webhook requests: signatures, encodings and the intake's answers")
struct WebhookIntakeTests {
    static let key = "app-key"
    static let secret = "app-secret"
    /// Made anew for each use: a `static let` Data is a process-lifetime allocation that
    /// LeakSanitizer reports.
    static var event: Data { Data(#"{"type":"message.new","cid":"messaging:general","message":{"id":"m1","text":"hi"}}"#.utf8) }

    static func sign(_ json: Data, secret: String = secret) -> String {
        HMAC<SHA256>.authenticationCode(for: json, using: SymmetricKey(data: Data(secret.utf8))).map { String(format: "%02x", $0) }.joined()
    }

    static func read(_ body: Data, _ headers: [String: String], maximumSize: Int = 4 << 20) throws(WebhookError) -> WebhookDelivery {
        try WebhookDelivery(body: body, headers: headers, apiKey: key, apiSecret: secret, maximumSize: maximumSize)
    }

    static func refusal(_ body: Data, _ headers: [String: String], maximumSize: Int = 4 << 20) -> WebhookError? {
        do {
            _ = try read(body, headers, maximumSize: maximumSize)
            return nil
        } catch {
            return error
        }
    }

    @Test("a signed request is read, plain or gzipped (headers in any case), with its webhook id and attempt")
    func readsSignedRequests() throws {
        let headers = ["X-Signature": Self.sign(Self.event), "x-webhook-id": "w-1", "X-WEBHOOK-ATTEMPT": "2", "X-Api-Key": Self.key]
        let plain = try Self.read(Self.event, headers)
        #expect(plain.event.type == .messageNew)
        #expect(plain.event.message?.text == "hi")
        #expect(plain.id == "w-1")
        #expect(plain.attempt == 2)

        let gzipped = try Self.gzip(Self.event)
        #expect(gzipped.count > 10 && gzipped[0] == 0x1f && gzipped[1] == 0x8b)
        var zipped = headers
        zipped["Content-Encoding"] = "gzip"
        // The signature is of the JSON, not of the gzip.
        #expect(try Self.read(gzipped, zipped).event.message?.id == "m1")
        #expect(Self.refusal(gzipped, ["X-Signature": Self.sign(gzipped), "Content-Encoding": "gzip"])?.code == .signatureMismatch)
    }

    @Test("each bad request gets its own refusal and status, and nothing is read from it")
    func refusesBadRequests() throws {
        let signature = Self.sign(Self.event)
        let missing = try #require(Self.refusal(Self.event, [:]))
        #expect(missing.code == .signatureMissing)
        #expect(missing.httpStatus == 401)

        let forged = try #require(Self.refusal(Self.event, ["X-Signature": Self.sign(Self.event, secret: "another-secret")]))
        #expect(forged.code == .signatureMismatch)
        #expect(forged.httpStatus == 401)
        #expect(forged.message.contains("secret of app \"app-key\""))
        // Not hex, odd length, empty: mismatches, never a crash.
        for bad in ["zz", "abc", "", String(repeating: "0", count: 64)] {
            #expect(Self.refusal(Self.event, ["X-Signature": bad])?.code == .signatureMismatch)
        }
        // The body changed after signing.
        var tampered = Self.event
        tampered[tampered.count - 4] = UInt8(ascii: "o")
        #expect(Self.refusal(tampered, ["X-Signature": signature])?.code == .signatureMismatch)

        let otherApp = try #require(Self.refusal(Self.event, ["X-Signature": signature, "X-Api-Key": "other-app"]))
        #expect(otherApp.code == .apiKeyMismatch)
        #expect(otherApp.message.contains("\"other-app\""))

        let brotli = try #require(Self.refusal(Self.event, ["X-Signature": signature, "Content-Encoding": "br"]))
        #expect(brotli.code == .unsupportedEncoding)
        #expect(brotli.httpStatus == 415)

        let notGzip = try #require(Self.refusal(Self.event, ["X-Signature": signature, "Content-Encoding": "gzip"]))
        #expect(notGzip.code == .corruptGzip)
        let cut = try Self.gzip(Self.event).dropLast(12)
        #expect(Self.refusal(Data(cut), ["X-Signature": signature, "Content-Encoding": "gzip"])?.code == .corruptGzip)

        // A small gzip that inflates past the limit (a 1 MiB run of spaces).
        let bomb = try Self.gzip(Data(repeating: 0x20, count: 1 << 20))
        #expect(bomb.count < 8_192)
        let inflated = try #require(Self.refusal(bomb, ["X-Signature": signature, "Content-Encoding": "gzip"], maximumSize: 64 << 10))
        #expect(inflated.code == .tooLarge)
        #expect(inflated.httpStatus == 413)
        #expect(Self.refusal(Self.event, ["X-Signature": signature], maximumSize: 16)?.code == .tooLarge)

        for body in ["not json", "{\"no\":\"type\"}", "[1,2]", "{\"type\":"] {
            let json = Data(body.utf8)
            let refusal = try #require(Self.refusal(json, ["X-Signature": Self.sign(json)]))
            #expect(refusal.code == .notAnEvent, "\(body)")
            #expect(refusal.httpStatus == 400)
        }
    }

    @Test("the intake answers 503 while no bot takes events, passes each event to every bot once, and answers a retry 200 without passing it again")
    func intakeFansOutOnce() async throws {
        let intake = WebhookIntake(apiKey: Self.key, apiSecret: Self.secret)
        let headers = ["X-Signature": Self.sign(Self.event), "X-Webhook-Id": "w-7"]
        let early = intake.receive(body: Self.event, headers: headers)
        #expect(early.status == 503)
        #expect(early.code == "webhook.busy")

        let (firstId, first) = intake.subscribe(name: "first")
        let (_, second) = intake.subscribe(name: "second")
        #expect(intake.subscriberCount == 2)
        #expect(intake.receive(body: Self.event, headers: headers).status == 200)
        let again = intake.receive(body: Self.event, headers: headers.merging(["X-Webhook-Attempt": "2"]) { $1 })
        #expect(again.status == 200)
        #expect(again.message.contains("taken before"))
        let forged = intake.receive(body: Self.event, headers: ["X-Signature": "00"])
        #expect(forged.status == 401)
        #expect(forged.code == "webhook.signature_mismatch")

        intake.unsubscribe(firstId)
        var firstEvents: [Event] = []
        for await event in first { firstEvents.append(event) }
        #expect(firstEvents.map(\.message?.id) == ["m1"])
        var iterator = second.makeAsyncIterator()
        #expect(await iterator.next()?.message?.id == "m1")
        #expect(intake.subscriberCount == 1)

        // A bot whose queue is full: 503, so the service sends it again later.
        let registry = PrometheusCollectorRegistry()
        let small = WebhookIntake(apiKey: Self.key, apiSecret: Self.secret, queueCapacity: 1, metricsFactory: PrometheusMetricsFactory(registry: registry))
        let (_, slow) = small.subscribe(name: "slow")
        #expect(small.receive(body: Self.event, headers: ["X-Signature": Self.sign(Self.event), "X-Webhook-Id": "a"]).status == 200)
        let behind = small.receive(body: Self.event, headers: ["X-Signature": Self.sign(Self.event), "X-Webhook-Id": "b"])
        #expect(behind.status == 503)
        #expect(behind.message.contains("slow"))
        #expect(small.receive(body: Self.event, headers: ["X-Signature": Self.sign(Self.event), "X-Webhook-Id": "a"]).status == 200)
        #expect(small.receive(body: Self.event, headers: [:]).status == 401)
        let samples = MetricSamples(registry.emitToString())
        #expect(samples["chatbotkit_webhook_requests_total", ["outcome": "taken"]] == 1)
        #expect(samples["chatbotkit_webhook_requests_total", ["outcome": "busy"]] == 1)
        #expect(samples["chatbotkit_webhook_requests_total", ["outcome": "retried"]] == 1)
        #expect(samples["chatbotkit_webhook_requests_total", ["outcome": "refused"]] == 1)
        _ = slow
    }

    @Test("attempts at one event that arrive together pass it on once: each other attempt is answered 200 (taken) or 503 (being taken)")
    func simultaneousAttempts() async throws {
        let intake = WebhookIntake(apiKey: Self.key, apiSecret: Self.secret, queueCapacity: 100_000)
        let (subscription, events) = intake.subscribe(name: "bot")
        let ids = (0..<2000).map { "w-\($0)" }
        let signature = Self.sign(Self.event)
        // Four senders post every id at once, as a service that gave up waiting on an attempt would.
        let answers = await withTaskGroup(of: [(String, Int)].self) { group in
            for _ in 0..<4 {
                group.addTask { ids.map { ($0, intake.receive(body: Self.event, headers: ["X-Signature": signature, "X-Webhook-Id": $0]).status) } }
            }
            var all: [(String, Int)] = []
            for await answers in group { all += answers }
            return all
        }
        intake.unsubscribe(subscription)
        var passed = 0
        for await _ in events { passed += 1 }
        #expect(passed == ids.count)
        #expect(Set(answers.map(\.1)).isSubset(of: [200, 503]))
        let takenIds = Set(answers.filter { $0.1 == 200 }.map(\.0))
        #expect(takenIds.count == ids.count, "every event was answered 200 at least once")
    }

    static func gzip(_ bytes: Data) throws -> Data {
        let scratch = try ScratchFolder("gzip")
        let file = try scratch.write(bytes, as: "body")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-n", file.path]
        try process.run()
        process.waitUntilExit()
        return try Data(contentsOf: scratch.path("body.gz"))
    }
}
