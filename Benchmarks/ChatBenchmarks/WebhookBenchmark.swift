import ChatBotKitWebhooks
import ChatBotKit
import ChatModels
import CompressNIO
import Crypto
import Foundation
import NIOCore

/// Webhook requests taken: each `message.new` event of the decode corpus, signed as the service
/// signs it, through `WebhookIntake.receive` (signature checked in constant time, event decoded,
/// passed to one subscribed bot, its webhook id remembered), as plain JSON and gzipped.
/// `ChatBenchmarks webhook <corpus-path> [events] [rounds]`
enum WebhookBenchmark {
    static let key = "bench-key"
    static let secret = "bench-secret-of-at-least-32-bytes!"

    struct Request {
        let body: Data
        let signature: String
    }

    static func run(_ arguments: [String]) async throws {
        let corpusURL = URL(fileURLWithPath: arguments.first ?? "Benchmarks/.out/corpus.ndjson")
        let eventCount = arguments.count > 1 ? Int(arguments[1]) ?? 10_000 : 10_000
        let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5
        try FileManager.default.createDirectory(at: corpusURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        let corpusBytes = try CorpusWriter.write(count: eventCount, to: corpusURL)
        let lines = try Data(contentsOf: corpusURL).split(separator: 0x0A).map { Array($0) }
        let signing = SymmetricKey(data: Data(secret.utf8))
        func sign(_ json: [UInt8]) -> String { HMAC<SHA256>.authenticationCode(for: json, using: signing).map { String(format: "%02x", $0) }.joined() }
        let plain = lines.map { Request(body: Data($0), signature: sign($0)) }
        let gzipped = try lines.map { line in
            var buffer = ByteBuffer(bytes: line)
            return Request(body: Data(try buffer.compress(with: .gzip()).readableBytesView), signature: sign(line))
        }
        let gzipBytes = gzipped.reduce(0) { $0 + $1.body.count }
        print("corpus: \(lines.count) events, \(corpusBytes) bytes (\(corpusBytes / lines.count) bytes/event; gzipped \(gzipBytes / lines.count)) at \(corpusURL.path)")
        let plainRate = try await measure(plain, encoding: nil, rounds: rounds)
        let gzipRate = try await measure(gzipped, encoding: "gzip", rounds: rounds)
        print(String(format: "WebhookIntake, signed JSON: %.0f requests/s; gzipped: %.0f requests/s (best of %d rounds)", plainRate, gzipRate, rounds))
        print(String(format: "RESULT webhook swift_plain_per_s=%.0f swift_gzip_per_s=%.0f", plainRate, gzipRate))
        try printStages(plain, rounds: rounds)
    }

    /// Where a plain request's time goes, one step at a time (best of `rounds` each).
    static func printStages(_ requests: [Request], rounds: Int) throws {
        func microseconds(_ step: (Request) throws -> Int) rethrows -> Double {
            try bestMicroseconds(requests, rounds: rounds, step)
        }
        let signing = SymmetricKey(data: Data(secret.utf8))
        let hmac = microseconds { request in
            HMAC<SHA256>.authenticationCode(for: request.body, using: signing).withUnsafeBytes { Int($0[0]) + 1 }
        }
        let decode = try microseconds { try Event.decode(frame: $0.body).message?.attachments.count ?? 0 }
        let delivery = try microseconds { request in
            try WebhookDelivery(body: request.body, headers: ["x-signature": request.signature], apiKey: key, apiSecret: secret)
                .event.message?.attachments.count ?? 0
        }
        print(String(format: "per request: HMAC-SHA256 of the body %.2f µs, Event.decode %.2f µs, WebhookDelivery (both, and the rest) %.2f µs", hmac, decode, delivery))
    }

    /// Requests per second through a fresh intake with one subscriber, best of `rounds`.
    static func measure(_ requests: [Request], encoding: String?, rounds: Int) async throws -> Double {
        var best = Duration.seconds(1_000_000)
        for round in 0..<rounds {
            let intake = WebhookIntake(apiKey: key, apiSecret: secret, queueCapacity: requests.count + 1)
            let (subscription, events) = intake.subscribe(name: "bench")
            let headers = requests.indices.map { index in
                // As WebhookServer hands them over: HTTP field names in lower case.
                var headers = ["x-signature": requests[index].signature, "x-webhook-id": "r\(round)-\(index)", "x-api-key": key]
                if let encoding { headers["content-encoding"] = encoding }
                return headers
            }
            let clock = ContinuousClock()
            let start = clock.now
            for (request, headers) in zip(requests, headers) {
                let receipt = intake.receive(body: request.body, headers: headers)
                guard receipt.status == 200 else { throw BenchmarkError("a request was refused: \(receipt.message)") }
            }
            best = min(best, clock.now - start)
            intake.unsubscribe(subscription)
            var passed = 0
            for await event in events where event.type == .messageNew { passed += 1 }
            guard passed == requests.count else { throw BenchmarkError("\(passed) of \(requests.count) events reached the bot") }
        }
        return Double(requests.count) / best.seconds
    }
}
