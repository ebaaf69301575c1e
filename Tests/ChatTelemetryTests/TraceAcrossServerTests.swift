import ChatBotKit
import ChatBotKitTesting
import ChatDevServer
import ChatModels
import ChatTelemetry
import Foundation
import Testing

@Suite("One trace from a bot's delivery to the dev server's work on its reply, joined by traceparent")
struct TraceAcrossServerTests {
    @Test("HandleMessage → SendMessage (client) → POST /channels/{type}/{id}/message (server), in one trace")
    func deliveryReplyAndServer() async throws {
        try await TestCollector.withCollector { collector in
            let tracer = OTLPTracer(configuration: .test(collector.baseURL))
            try await withRunning(tracer) {
                try await TestChatServer.withServer(configure: { $0.tracer = tracer }) { server in
                    let bot = Bot(name: "echo")
                    bot.onMessage { context in try await context.reply(text: "heard: \(context.message.text)") }
                    let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
                    try await server.withBot(bot, channels: ["messaging:general"], tracer: tracer) { _ in
                        let sent = try await ann.send(text: "hello")
                        let replies = try await ann.replies(to: sent, from: "echo")
                        #expect(replies.first?.text == "heard: hello")
                        tracer.forceFlush()
                        try await eventually("the delivery and the server's span of its reply were exported") {
                            let names = collector.spans.compactMap(\.name)
                            return names.contains("HandleMessage") && names.contains("POST /channels/{type}/{id}/message")
                        }
                    }
                }
            }
            let spans = collector.spans
            let delivery = try #require(spans.first { $0.name == "HandleMessage" })
            let reply = try #require(spans.first { $0.name == "SendMessage" && $0.parentSpanID == delivery.spanID })
            #expect(reply.traceID == delivery.traceID)
            #expect(reply.kind == 3)
            // The reply reached the server with its traceparent: the server's span is its child.
            let handled = try #require(spans.first { $0.parentSpanID == reply.spanID })
            #expect(handled.name == "POST /channels/{type}/{id}/message")
            #expect(handled.kind == 2)
            #expect(handled.traceID == delivery.traceID)
            #expect(handled.stringAttribute("http.route") == "/channels/{type}/{id}/message")
            #expect(handled.attribute("http.response.status_code")?["intValue"] == .string("201"))
            #expect(handled.stringAttribute("url.path") == "/channels/messaging/general/message")
            #expect(handled.json["flags"] == .number(JSONNumber(0x301)), "its parent came from another side of an HTTP call")
            // Ann's own send had no trace of its own: the server started one for it.
            #expect(spans.contains { $0.name == "POST /channels/{type}/{id}/message" && $0.parentSpanID == nil })
            #expect(spans.allSatisfy { $0.service == "tests" })
        }
    }
}
