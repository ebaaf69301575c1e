import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Foundation
import InMemoryTracing
import Testing
import Tracing

@Suite("A bot's spans, through swift-distributed-tracing into its in-memory tracer")
struct TracingTests {
    struct PollRejected: Error {}

    @Test("a delivery's span covers its handlers, the calls they make are its children, and failures mark it")
    func deliverySpans() async throws {
        try await TestChatServer.withServer { server in
            let tracer = InMemoryTracer()
            let bot = Bot(name: "tracer")
            bot.on(PollPayload.self) { poll, context in
                guard poll.payload.question != "fail?" else { throw PollRejected() }
                try await context.reply(text: "voted")
            }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let (voted, undecodable, failing) = try await server.withBot(bot, channels: ["messaging:general"], tracer: tracer) { _ in
                let voted = try await ann.send(PollPayload(question: "Lunch?", options: ["pizza"]), text: "poll")
                _ = try await ann.replies(to: voted, from: "tracer")
                let undecodable = try await ann.send(attachments: [
                    AnyAttachmentPayload(json: AttachmentFixtures.custom("poll", ["question": "Dinner?", "options": ["a"], "votes": "many"]))
                ])
                let failing = try await ann.send(PollPayload(question: "fail?", options: []))
                try await eventually("three deliveries traced") {
                    tracer.finishedSpans.filter { $0.operationName == "HandleMessage" }.count == 3
                }
                return (voted, undecodable, failing)
            }
            let spans = tracer.finishedSpans
            func delivery(_ message: Message) throws -> FinishedInMemorySpan {
                try #require(spans.first { $0.operationName == "HandleMessage" && $0.attributes.get("chat.message.id") == .string(message.id) })
            }

            let handled = try delivery(voted)
            #expect(handled.kind == .consumer)
            #expect(handled.parentSpanID == nil, "each delivery starts a trace")
            #expect(handled.attributes.get("chatbotkit.bot") == .string("tracer"))
            #expect(handled.attributes.get("chat.channel.cid") == .string("messaging:general"))
            #expect(handled.attributes.get("chatbotkit.attachment.types") == .stringArray(["poll"]))
            #expect(handled.status == nil && handled.errors.isEmpty)
            // The reply its handler sent is a child span, in the same trace.
            let reply = try #require(spans.first { $0.operationName == "SendMessage" && $0.parentSpanID == handled.spanID })
            #expect(reply.traceID == handled.traceID)
            #expect(reply.kind == .client)
            #expect(reply.attributes.get("http.request.method") == .string("POST"))
            #expect(reply.attributes.get("http.response.status_code") == .int64(201))
            #expect(reply.attributes.get("url.path") == .string("/channels/messaging/general/message"))
            #expect(reply.attributes.get("server.address") == .string("127.0.0.1"))

            let decoding = try delivery(undecodable)
            let event = try #require(decoding.events.first { $0.name == "attachment decoding failed" })
            #expect(event.attributes.get("chatbotkit.field_path") == .string("votes"))
            #expect(event.attributes.get("chatbotkit.attachment.type") == .string("poll"))
            #expect(decoding.status == nil, "a payload that does not fit is the sender's mistake, not the bot's")

            let failed = try delivery(failing)
            #expect(failed.status?.code == .error)
            #expect(failed.errors.count == 1)
            #expect((failed.errors.first?.error as? BotError)?.code == .handlerFailed)
        }
    }

    @Test("a call's span covers its retries (two 500s, then success: one UploadFile span, resend count 2); a refused call is an error span; a download's link refresh is in its span")
    func callSpans() async throws {
        try await TestChatServer.withServer { server in
            let tracer = InMemoryTracer()
            let client = server.client(as: "ann", tracer: tracer)
            try await client.queryChannel("messaging:traced", members: ["ann"])
            let channel = client.channel("messaging:traced")
            let files = try ScratchFolder()
            server.server.injectFault(InjectedFault(pathContains: "/file", status: 500, count: 2))
            let sent = try await channel.sendMessage(
                attachments: [try AnyAttachmentPayload(localFileURL: try files.text("a,b\n", named: "t.csv"), attachmentType: .file)])
            server.server.injectFault(InjectedFault(pathContains: "/file", status: 413, code: 4, count: 1))
            await #expect(throws: ChatClientError.self) {
                try await channel.sendMessage(
                    attachments: [try AnyAttachmentPayload(localFileURL: try files.text("c,d\n", named: "u.csv"), attachmentType: .file)])
            }
            let uploads = tracer.finishedSpans.filter { $0.operationName == "UploadFile" }
            try #require(uploads.count == 2)
            #expect(uploads[0].attributes.get("http.response.status_code") == .int64(201))
            #expect(uploads[0].attributes.get("http.request.resend_count") == .int64(2))
            #expect(uploads[0].status == nil)
            #expect(uploads[0].parentSpanID == nil, "no delivery around it: a trace of its own")
            #expect(uploads[1].attributes.get("http.response.status_code") == .int64(413))
            #expect(uploads[1].status?.code == .error)
            #expect((uploads[1].errors.first?.error as? ChatClientError)?.httpStatus == 413)
            #expect(tracer.finishedSpans.filter { $0.operationName == "SendMessage" }.count == 1, "the refused upload sent no message")

            // A link that does not look expired, which the file host refuses: refreshed inside
            // the download's span, its GetMessage a child of it.
            var json = sent.attachments[0].rawJSON
            let link = try #require(json["asset_url"]?.stringValue)
            #expect(link.contains("Expires="))
            json["asset_url"] = .string(link.replacing(/Expires=\d+/, with: "Expires=4102444800"))
            _ = try await client.download(AnyChatMessageAttachment(id: sent.attachments[0].id, json: json))
            let download = try #require(tracer.finishedSpans.first { $0.operationName == "DownloadFile" })
            #expect(download.events.map(\.name) == ["link refreshed: forbidden"])
            #expect(download.attributes.get("http.response.status_code") == .int64(200))
            #expect(download.attributes.get("http.request.resend_count") == .int64(1))
            guard case .string(let path)? = download.attributes.get("url.path") else { Issue.record("no url.path"); return }
            #expect(path.hasSuffix("/t.csv") && !path.contains("Expires"), "the path alone, not the signature: \(path)")
            let reread = try #require(tracer.finishedSpans.first { $0.operationName == "GetMessage" })
            #expect(reread.parentSpanID == download.spanID)
        }
    }
}
