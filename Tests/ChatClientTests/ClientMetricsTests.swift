import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Foundation
import Prometheus
import Testing

@Suite("A client's metrics: HTTP calls and retries, uploads, link refreshes")
struct ClientMetricsTests {
    @Test("retried calls count each attempt; uploads count files and bytes; expired and refused links count their refreshes and re-reads")
    func clientMetrics() async throws {
        try await TestChatServer.withServer(configure: { $0.linkLifetime = .seconds(2) }) { server in
            let registry = PrometheusCollectorRegistry()
            let client = server.client(as: "alice", metricsFactory: PrometheusMetricsFactory(registry: registry))
            try await client.queryChannel("messaging:metered", members: ["alice"])
            let channel = client.channel("messaging:metered")
            let scratch = try ScratchFolder("client")

            // Two 500s, then the upload goes through.
            server.server.injectFault(InjectedFault(pathContains: "/file", status: 500, count: 2))
            let sent = try await channel.sendMessage(
                attachments: [try AnyAttachmentPayload(localFileURL: try scratch.file("notes.txt", bytes: 1_234), attachmentType: .file)])
            // A 429: the send waits for the reset, then goes through.
            server.server.injectFault(InjectedFault(pathContains: "/message", status: 429, code: 9, count: 1, resetAfterSeconds: 1))
            try await channel.sendMessage(text: "after the limit")
            // An upload refused for good.
            server.server.injectFault(InjectedFault(pathContains: "/file", status: 413, code: 4, count: 1))
            await #expect(throws: ChatClientError.self) {
                try await channel.sendMessage(
                    attachments: [try AnyAttachmentPayload(localFileURL: try scratch.file("big.txt", bytes: 10), attachmentType: .file)])
            }

            var samples = MetricSamples(registry.emitToString())
            #expect(samples["chatbotkit_http_requests_total", ["operation": "UploadFile", "status": "500"]] == 2)
            #expect(samples["chatbotkit_http_requests_total", ["operation": "UploadFile", "status": "201"]] == 1)
            #expect(samples["chatbotkit_http_requests_total", ["operation": "UploadFile", "status": "413"]] == 1)
            #expect(samples["chatbotkit_http_retries_total", ["operation": "UploadFile", "reason": "server_error"]] == 2)
            #expect(samples["chatbotkit_http_requests_total", ["operation": "SendMessage", "status": "429"]] == 1)
            #expect(samples["chatbotkit_http_requests_total", ["operation": "SendMessage", "status": "201"]] == 2)
            #expect(samples["chatbotkit_http_retries_total", ["operation": "SendMessage", "reason": "rate_limited"]] == 1)
            #expect(samples["chatbotkit_rate_limit_wait_seconds_count", ["operation": "SendMessage"]] == 1)
            #expect(samples["chatbotkit_uploads_total", ["kind": "file", "outcome": "uploaded"]] == 1)
            #expect(samples["chatbotkit_uploads_total", ["kind": "file", "outcome": "failed"]] == 1)
            #expect(samples["chatbotkit_upload_bytes_total", ["kind": "file"]] == 1_234)
            #expect(samples["chatbotkit_http_request_duration_seconds_count", ["operation": "UploadFile"]] == 4)

            // Expired links: three concurrent downloads, one re-read of the message.
            try await Task.sleep(for: .milliseconds(2500))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<3 {
                    group.addTask { _ = try await client.download(sent.attachments[0], to: scratch.path("copy-\(index)")) }
                }
                try await group.waitForAll()
            }
            // A link that does not look expired (its expiry moved to 2100) and that the file host
            // therefore refuses: refreshed again with a second re-read.
            var json = sent.attachments[0].rawJSON
            let link = try #require(json["asset_url"]?.stringValue)
            json["asset_url"] = .string(link.replacing(/Expires=\d+/, with: "Expires=4102444800"))
            let tampered = AnyChatMessageAttachment(id: sent.attachments[0].id, json: json)
            _ = try await client.download(tampered, to: scratch.path("copy-4"))

            samples = MetricSamples(registry.emitToString())
            #expect(samples["chatbotkit_link_refreshes_total", ["reason": "expired"]] == 3)
            #expect(samples["chatbotkit_link_refreshes_total", ["reason": "forbidden"]] == 1)
            #expect(samples["chatbotkit_message_rereads_total", ["reason": "link_refresh"]] == 2, "one re-read shared by three downloads")
            #expect(samples["chatbotkit_http_requests_total", ["operation": "DownloadFile", "status": "403"]] == 1)
            #expect(samples["chatbotkit_http_requests_total", ["operation": "DownloadFile", "status": "200"]] == 4)
        }
    }
}
