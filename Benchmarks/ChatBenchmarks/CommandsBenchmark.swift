import ChatBotKitWebhooks
import ChatBotKit
import ChatClient
import ChatModels
import Crypto
import Foundation
import WorkoutBot

/// Custom command requests answered: the message of each `message.new` event of the decode
/// corpus as the service sends it for `/log run 5km 25m 400kcal` (with its user), signed,
/// through `CustomCommandIntake.receive` with the workout bot's own `/log` handler: signature
/// checked, message and user decoded, the arguments read into a typed workout, and the
/// ephemeral answer (the workout attachment and two buttons) written back as JSON.
/// `ChatBenchmarks commands <corpus-path> [events] [rounds]`
enum CommandsBenchmark {
    static let key = "bench-key"
    static let secret = "bench-secret-of-at-least-32-bytes!"

    static func run(_ arguments: [String]) async throws {
        let corpusURL = URL(fileURLWithPath: arguments.first ?? "Benchmarks/.out/corpus.ndjson")
        let eventCount = arguments.count > 1 ? Int(arguments[1]) ?? 10_000 : 10_000
        let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5
        try FileManager.default.createDirectory(at: corpusURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        _ = try CorpusWriter.write(count: eventCount, to: corpusURL)
        let signing = SymmetricKey(data: Data(secret.utf8))
        let requests = try Data(contentsOf: corpusURL).split(separator: 0x0A).map { line -> (Data, String) in
            let body = try commandRequest(fromEvent: Data(line))
            return (body, HMAC<SHA256>.authenticationCode(for: body, using: signing).map { String(format: "%02x", $0) }.joined())
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("commands-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let bot = WorkoutBot.make(name: "workout", user: User(id: "workout-bot"), store: try WorkoutStore(url: folder.appendingPathComponent("w.sqlite")))
        // The handler makes no call; the client is only what handlers are given.
        let client = ChatClient(configuration: ChatClientConfiguration(apiKey: key, baseURL: URL(string: "http://127.0.0.1:9")!, credentials: .apiSecret(secret)))
        let intake = CustomCommandIntake(apiKey: key, apiSecret: secret)
        try intake.register(bot.customCommands, bot: bot.name, client: client)
        print("corpus: \(requests.count) /log requests, \(requests.reduce(0) { $0 + $1.0.count } / requests.count) bytes each")
        var best = Duration.seconds(1_000_000)
        for _ in 0..<rounds {
            var answers: [CustomCommandIntake.Answer] = []
            answers.reserveCapacity(requests.count)
            let clock = ContinuousClock()
            let start = clock.now
            for (body, signature) in requests {
                answers.append(await intake.receive(body: body, headers: ["x-signature": signature, "x-api-key": key]))
            }
            best = min(best, clock.now - start)
            // Checked after the clock stops: every answer is the ephemeral workout with its buttons.
            for answer in answers {
                let message = try JSONParser().parse(answer.body)["message"]
                guard answer.status == 200, message?["type"]?.stringValue == "ephemeral", message?["attachments"]?.arrayValue?.count == 2 else {
                    throw BenchmarkError("a request was not answered with the workout: \(String(decoding: answer.body, as: UTF8.self))")
                }
            }
        }
        let rate = Double(requests.count) / best.seconds
        print(String(format: "CustomCommandIntake with the workout bot's /log: %.0f requests/s (best of %d rounds)", rate, rounds))
        print(String(format: "RESULT commands swift_per_s=%.0f", rate))
    }

    /// `{"message": <the event's message as a /log command>, "user": <its user>}`, as the
    /// service posts it to the handler.
    static func commandRequest(fromEvent line: Data) throws -> Data {
        guard case .object(let event) = try JSONParser().parse(line), case .object(var message)? = event["message"] else {
            throw BenchmarkError("a corpus line is not a message event")
        }
        message["text"] = "/log run 5km 25m 400kcal"
        message["command"] = "log"
        message["args"] = "run 5km 25m 400kcal"
        var request: JSONObject = ["message": .object(message)]
        request["user"] = event["user"]
        return JSONWriter.data(.object(request))
    }
}
