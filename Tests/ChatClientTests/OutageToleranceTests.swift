import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatLocking
import ChatModels
import ChatTestSupport
import Foundation
import Logging
import Prometheus
import Testing

@Suite("Calls safe to repeat outlast an outage of the service, up to the outage tolerance")
struct OutageToleranceTests {
    @Test("a send with its id and an upload, both held while the server is down for 2 s, go through once it is back; two notices say so")
    func heldAcrossOutage() async throws {
        try await TestChatServer.withServer { server in
            let registry = PrometheusCollectorRegistry()
            let logs = LogLines()
            let bot = ChatClient(
                configuration: ChatClientConfiguration(
                    apiKey: server.apiKey, baseURL: server.baseURL, credentials: .apiSecret(server.apiSecret), userId: "bot"),
                metricsFactory: PrometheusMetricsFactory(registry: registry), logger: logs.logger)
            try await bot.queryChannel("messaging:outage", members: ["bot"])
            let channel = bot.channel("messaging:outage")
            let scratch = try ScratchFolder("outage")
            let file = try scratch.file("held.txt", bytes: 2_048)
            await server.stop()
            let start = ContinuousClock.now
            async let text = channel.sendMessage(text: "held", id: "held-1")
            async let upload = channel.sendMessage(
                attachments: [try AnyAttachmentPayload(localFileURL: file, attachmentType: .file)], id: "held-2")
            try await eventually("both calls are held") { bot.heldCalls == 2 }
            #expect(MetricSamples(registry.emitToString())["chatbotkit_calls_held", ["user": "bot"]] == 2)
            try await Task.sleep(for: .seconds(2))
            try await server.restart()
            let (sent, uploaded) = try await (text, upload)
            #expect(ContinuousClock.now - start < .seconds(10), "the calls are tried again within the backoff's 5 s ceiling")
            #expect(sent.id == "held-1" && uploaded.attachments.count == 1)
            let stored = try await bot.queryChannel("messaging:outage").messages.map(\.id)
            #expect(stored.sorted() == ["held-1", "held-2"], "each stored once")
            #expect(bot.heldCalls == 0)
            #expect(MetricSamples(registry.emitToString())["chatbotkit_calls_held", ["user": "bot"]] == 0)
            let notices = logs.lines(at: .notice)
            #expect(notices.count == 2, "one notice for the outage and one for its end, not one per call or retry: \(notices)")
            #expect(notices.first?.hasPrefix("service unreachable; holding 1 call for up to 10m") == true, "\(notices)")
            #expect(notices.last?.hasPrefix("service back after ") == true, "\(notices)")
            #expect(logs.lines(at: .debug).contains { $0.contains("retrying") }, "each retry logs at debug")
        }
    }

    @Test("an outage longer than the tolerance fails the call, saying how many attempts over how long")
    func outageLongerThanTolerance() async throws {
        try await TestChatServer.withServer { server in
            let bot = server.client(as: "bot") {
                $0.outageTolerance = .seconds(1)
                $0.maximumAttempts = 2
            }
            try await bot.queryChannel("messaging:gone", members: ["bot"])
            await server.stop()
            let start = ContinuousClock.now
            let error = await #expect(throws: ChatClientError.self) {
                try await bot.channel("messaging:gone").sendMessage(text: "never", id: "gone-1")
            }
            let waited = ContinuousClock.now - start
            #expect(waited >= .seconds(1) && waited < .seconds(4), "it tried for the tolerance, then gave up: \(waited)")
            #expect(error?.isTransient == true && error?.isServerUnreachable == true)
            #expect((error?.attempts ?? 0) > 2, "more tries than maximumAttempts within the tolerance")
            #expect(error?.message.contains("gave up after \(error?.attempts ?? 0) attempts over") == true, "\(String(describing: error))")
            #expect(bot.heldCalls == 0)
        }
    }

    @Test("cancelling a held call (a shutdown) ends its wait at once")
    func cancellationEndsWait() async throws {
        try await TestChatServer.withServer { server in
            let bot = server.client(as: "bot")
            try await bot.queryChannel("messaging:cancel", members: ["bot"])
            await server.stop()
            let held = Task { try await bot.channel("messaging:cancel").sendMessage(text: "held", id: "cancel-1") }
            try await eventually("the call is held") { bot.heldCalls == 1 }
            let cancelledAt = ContinuousClock.now
            held.cancel()
            await #expect(throws: CancellationError.self) { try await held.value }
            #expect(ContinuousClock.now - cancelledAt < .seconds(1))
            #expect(bot.heldCalls == 0)
        }
    }

    @Test("a refusal (4xx) is not transient and is not tried again")
    func refusalIsNotRetried() async throws {
        try await TestChatServer.withServer { server in
            let bot = server.client(as: "bot")
            try await bot.queryChannel("messaging:refused", members: ["bot"])
            server.server.injectFault(InjectedFault(pathContains: "/message", status: 400, code: 4, count: 1))
            let error = await #expect(throws: ChatClientError.self) {
                try await bot.channel("messaging:refused").sendMessage(text: "refused", id: "refused-1")
            }
            #expect(error?.isTransient == false && error?.attempts == 1 && error?.httpStatus == 400)
        }
    }
}
