import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Foundation
import Prometheus
import Testing

@Suite("A bot's metrics, through swift-metrics into a real Prometheus registry")
struct MetricsTests {
    @Test("deliveries, attachments by type, decoding failures, handler errors, handling time and redeliveries are counted")
    func botMetrics() async throws {
        try await TestChatServer.withServer { server in
            let registry = PrometheusCollectorRegistry()
            let recorder = Recorder<String>()
            let bot = Bot(name: "meter")
            bot.on(PollPayload.self) { poll, _ in
                guard poll.payload.question != "fail?" else { throw PollRejected() }
                recorder.record("poll \(poll.payload.question)")
            }
            bot.onDecodingFailure { failure, _ in recorder.record("failure \(failure.fieldPath)") }
            bot.onMessageUpdated { context in recorder.record("edit \(context.message.text)") }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"], metricsFactory: PrometheusMetricsFactory(registry: registry)) {
                running in
                let first = try await ann.send(attachments: [
                    AnyAttachmentPayload(payload: PollPayload(question: "Lunch?", options: ["pizza"])),
                    AnyAttachmentPayload(payload: AttachmentFixtures.image()),
                ])
                try await ann.send(attachments: [
                    AnyAttachmentPayload(json: AttachmentFixtures.custom("poll", ["question": "Dinner?", "options": ["a"], "votes": "many"]))
                ])
                try await ann.send(attachments: [AnyAttachmentPayload(payload: PollPayload(question: "fail?", options: []))])
                let edited = try await ann.client.updateMessage(first.id, text: "edited")
                try await recorder.wait { $0.contains("edit edited") }

                // Frames again, as a reconnect or `/sync` brings them: the first message.new (the
                // connection drops the copy), the edit in an event of another time (the bot skips
                // it), and a frame that is not an event.
                let now = RawJSON.string(RFC3339.string(from: Date()))
                let copies: [RawJSON] = [
                    ["type": "message.new", "cid": "messaging:general", "created_at": now, "message": first.json],
                    ["type": "message.updated", "cid": "messaging:general", "created_at": now, "message": edited.json],
                ]
                for copy in copies { await server.server.sendRawFrame(JSONWriter.string(copy), toUser: "meter") }
                await server.server.sendRawFrame("this is { not json", toUser: "meter")
                try await eventually("the copies were dropped") {
                    let samples = MetricSamples(registry.emitToString())
                    return samples["chatbotkit_bot_redeliveries_total", ["bot": "meter"]] == 1
                        && samples["chatbotkit_duplicate_events_total", ["user": "meter"]] == 1
                        && samples["chatbotkit_invalid_frames_total", ["user": "meter"]] == 1
                }
                var samples = MetricSamples(registry.emitToString())
                let bot = ["bot": "meter"]
                #expect(samples["chatbotkit_bot_deliveries_total", bot.merging(["trigger": "message"]) { $1 }] == 3)
                #expect(samples["chatbotkit_bot_deliveries_total", bot.merging(["trigger": "edit"]) { $1 }] == 1)
                #expect(samples["chatbotkit_bot_attachments_total", bot.merging(["type": "poll"]) { $1 }] == 3)
                #expect(samples["chatbotkit_bot_attachments_total", bot.merging(["type": "image"]) { $1 }] == 1)
                #expect(samples["chatbotkit_bot_decoding_failures_total", bot.merging(["type": "poll"]) { $1 }] == 1)
                #expect(samples["chatbotkit_bot_handler_errors_total", bot] == 1)
                #expect(samples.total("chatbotkit_bot_handling_duration_seconds_count", where: bot) == 4)
                #expect(samples["chatbotkit_bot_running_handlers", bot] == 0)
                #expect(samples["chatbotkit_bot_queued_deliveries", bot] == 0)
                // The connection's and the client's own.
                #expect(samples["chatbotkit_events_total", ["user": "meter", "type": "message.new"]] == 3)
                #expect(samples["chatbotkit_events_total", ["user": "meter", "type": "message.updated"]] == 2)
                #expect(samples["chatbotkit_connections_total", ["user": "meter"]] == 1)
                #expect(samples["chatbotkit_connected", ["user": "meter"]] == 1)
                #expect(samples["chatbotkit_http_requests_total", ["operation": "UpdateUsers", "status": "201"]] == 1)
                #expect(recorder.all.sorted() == ["edit edited", "failure votes", "poll Lunch?"])

                // A reconnect: the connection counts it, and the bot handles nothing twice.
                await server.server.dropConnections(ofUser: "meter")
                try await eventually("the bot reconnected") { running.service.connection.connectionCount >= 2 }
                try await ann.send(text: "after")
                try await eventually("the message after the reconnect was handled") {
                    MetricSamples(registry.emitToString())["chatbotkit_bot_deliveries_total", bot.merging(["trigger": "message"]) { $1 }] == 4
                }
                samples = MetricSamples(registry.emitToString())
                #expect(samples["chatbotkit_connections_total", ["user": "meter"]] == 2)
                #expect(samples["chatbotkit_bot_handler_errors_total", bot] == 1)
            }
            // Stopped: the connection is down, and nothing waits or runs.
            let samples = MetricSamples(registry.emitToString())
            #expect(samples["chatbotkit_connected", ["user": "meter"]] == 0)
            #expect(samples["chatbotkit_bot_running_handlers", ["bot": "meter"]] == 0)
        }
    }

    struct PollRejected: Error {}
}
