import ChatBotKit
import ChatBotKitTesting
import ChatBotKitWebhooks
import ChatClient
import ChatModels
import ChatTransport
import Crypto
import Foundation
import Logging
import ModerationBot

/// Before Message Send hooks, ours beside a plain Python one, on one dev server, driven by one
/// libcurl client over loopback HTTP, the same requests to each:
/// - round trips per second: signed requests for text messages (checked, decoded, judged,
///   answered), `concurrency` at a time;
/// - decision time: a message with one 25 MB file (a PNG), one request at a time, p50 and p99.
///   Ours is the moderation bot with `check: before_send` (a range request for the first 1 MB,
///   libmagic); the peer downloads the file whole and runs python-magic on it.
/// `ChatBenchmarks beforesend <python> <round-trips> <decisions> [concurrency]`
enum BeforeSendBenchmark {
    static func run(_ arguments: [String]) async throws {
        guard let python = arguments.first else {
            throw BenchmarkError("usage: ChatBenchmarks beforesend <python> <round-trips> <decisions> [concurrency]")
        }
        let roundTrips = arguments.count > 1 ? Int(arguments[1]) ?? 2_000 : 2_000
        let decisions = arguments.count > 2 ? Int(arguments[2]) ?? 40 : 40
        let concurrency = arguments.count > 3 ? Int(arguments[3]) ?? 4 : 4
        var logger = Logger(label: "bench.before-send")
        logger.logLevel = .warning
        try await TestChatServer.withServer(logger: logger) { server in
            let ann = try await TestUser.join(server, id: "ann", name: "Ann", channel: "messaging:general")
            let moderatorClient = server.client(as: "moderator")
            try await moderatorClient.upsertUsers([User(id: "moderator", name: "Moderator")])
            try await moderatorClient.join("messaging:general", as: "moderator")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString).png")
            try pngOf(bytes: 25_000_000).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let upload = try await ann.client.uploadAttachment(localFileURL: file, type: .file, to: "messaging:general")
            let attachment: RawJSON = [
                "type": "file", "asset_url": .string(upload.fileURL.absoluteString), "title": "poster.png", "mime_type": "image/png",
            ]

            let policy = ModerationPolicy(
                blockedExtensions: [".exe", ".dll", ".bat", ".sh"], allowedMimeTypes: ["image/*", "application/pdf", "text/csv"],
                maximumFileSize: 100 * 1024 * 1024, sniffContent: true, action: .deleteAndNotify, check: .beforeSend)
            let bot = try ModerationBot.make(name: "moderator", user: User(id: "moderator"), policy: policy)
            let intake = BeforeSendIntake(apiKey: server.apiKey, apiSecret: server.apiSecret, logger: logger)
            intake.register(bot, client: moderatorClient)
            let webhook = WebhookServer(
                intake: WebhookIntake(apiKey: server.apiKey, apiSecret: server.apiSecret, logger: logger), port: 0, beforeSend: intake, logger: logger)
            let peer = try PythonPeer(python: python, script: "Benchmarks/peers/before_send_peer.py", arguments: [server.apiKey, server.apiSecret])
            defer { peer.stop() }
            try await withRunningServices([webhook], logger: logger) {
                guard let ours = try await webhook.beforeSendURL().flatMap(URL.init(string:)) else { throw BenchmarkError("no before-send URL") }
                let theirs = URL(string: "http://127.0.0.1:\(peer.port)/before-send")!
                let signer = SymmetricKey(data: Data(server.apiSecret.utf8))
                let text = (0..<roundTrips).map { request(text: "message \($0)", attachments: [], key: signer) }
                let withFile = (0..<decisions).map { request(text: "poster \($0)", attachments: [attachment], key: signer) }
                let transport = CurlHTTPTransport()
                // Warm both (connections, caches, the peer's imports) before timing.
                for target in [ours, theirs] { _ = try await post(withFile[0], to: target, transport, expecting: "{}") }
                var rates: [String: Double] = [:]
                var latencies: [String: [Duration]] = [:]
                for (name, target) in [("swift", ours), ("peer", theirs)] {
                    rates[name] = try await roundTripRate(text, to: target, transport, concurrency: concurrency)
                    var times: [Duration] = []
                    for body in withFile { times.append(try await post(body, to: target, transport, expecting: "{}")) }
                    latencies[name] = times.sorted()
                }
                func ms(_ name: String, _ quantile: Double) -> Double {
                    let sorted = latencies[name] ?? []
                    return sorted[min(Int((Double(sorted.count) * quantile).rounded(.up)) - 1, sorted.count - 1)].seconds * 1000
                }
                print(String(format: "round trips (%d text messages, %d at a time): BeforeSendIntake + moderation bot %.0f/s; Python hook (verify_webhook + json) %.0f/s", roundTrips, concurrency, rates["swift"] ?? 0, rates["peer"] ?? 0))
                print(String(format: "decision on one 25 MB file (%d, one at a time): ours p50 %.1f ms p99 %.1f ms (1 MB range + libmagic); peer p50 %.1f ms p99 %.1f ms (whole download + python-magic)", decisions, ms("swift", 0.5), ms("swift", 0.99), ms("peer", 0.5), ms("peer", 0.99)))
                print(String(format: "RESULT beforesend swift_per_s=%.0f peer_per_s=%.0f swift_p50_ms=%.1f swift_p99_ms=%.1f peer_p50_ms=%.1f peer_p99_ms=%.1f", rates["swift"] ?? 0, rates["peer"] ?? 0, ms("swift", 0.5), ms("swift", 0.99), ms("peer", 0.5), ms("peer", 0.99)))
            }
        }
    }

    /// A signed request for a message with `text` and `attachments`, as the service posts it.
    static func request(text: String, attachments: [RawJSON], key: SymmetricKey) -> (body: Data, signature: String) {
        let body = JSONWriter.data([
            "message": ["id": "", "text": .string(text), "type": "regular", "attachments": .array(attachments), "user": ["id": "ann"]],
            "user": ["id": "ann", "role": "user", "name": "Ann"],
            "channel": ["cid": "messaging:general", "id": "general", "type": "messaging"],
            "request_info": ["type": "client", "ip": "127.0.0.1", "sdk": "stream-chat-benchmark"],
        ])
        return (body, HMAC<SHA256>.authenticationCode(for: body, using: key).map { String(format: "%02x", $0) }.joined())
    }

    /// Posts one request and returns how long its answer took; fails unless it is `expecting`.
    static func post(_ request: (body: Data, signature: String), to url: URL, _ transport: CurlHTTPTransport, expecting: String) async throws
        -> Duration
    {
        let started = ContinuousClock.now
        let response = try await transport.send(
            TransportRequest(
                method: "POST", url: url, headers: [("X-Signature", request.signature), ("X-Api-Key", "test-key")],
                body: .data(request.body, contentType: "application/json")))
        let took = ContinuousClock.now - started
        let answer = String(decoding: response.body, as: UTF8.self)
        guard response.status == 200, answer.replacingOccurrences(of: " ", with: "") == expecting else {
            throw BenchmarkError("\(url) answered \(response.status): \(answer)")
        }
        return took
    }

    /// Requests per second for `requests`, `concurrency` in flight.
    static func roundTripRate(_ requests: [(body: Data, signature: String)], to url: URL, _ transport: CurlHTTPTransport, concurrency: Int)
        async throws -> Double
    {
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<concurrency {
                group.addTask {
                    for index in stride(from: lane, to: requests.count, by: concurrency) {
                        _ = try await post(requests[index], to: url, transport, expecting: "{}")
                    }
                }
            }
            try await group.waitForAll()
        }
        return Double(requests.count) / (ContinuousClock.now - started).seconds
    }

    /// A PNG of `bytes` bytes: a real 1×1 image, then padding (libmagic reads only the header).
    static func pngOf(bytes: Int) -> Data {
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0])
        data.append(Data(count: bytes - data.count))
        return data
    }
}
