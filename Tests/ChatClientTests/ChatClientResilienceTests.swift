import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import ChatTransport
import Foundation
import Synchronization
import Testing

@Suite("ChatClient resilience and bad input")
struct ChatClientResilienceTests {
    @Test("the server closes the socket mid-stream: every message sent meanwhile arrives once, after reconnect and /sync")
    func serverDropsConnection() async throws {
        try await TestChatServer.withServer { server in
            let bot = server.client(as: "bot")
            let alice = server.client(as: "alice")
            try await withEventConnection(bot, user: "bot") { connection, collector in
                try await connection.watch("messaging:live")
                try await alice.addMembers(["alice"], to: "messaging:live")
                let channel = alice.channel("messaging:live")
                try await channel.sendMessage(text: "before", id: "m-0")
                try await collector.wait { $0.contains { $0.message?.id == "m-0" } }
                await server.server.silence("bot")
                await server.server.dropConnections(ofUser: "bot")
                for index in 1...5 { try await channel.sendMessage(text: "during \(index)", id: "m-\(index)") }
                await server.server.silence("bot", false)
                try await collector.wait { $0.filter { $0.type == .messageNew }.count >= 6 }
                try await channel.sendMessage(text: "after", id: "m-6")
                try await collector.wait { $0.contains { $0.message?.id == "m-6" } }
                #expect(collector.newMessageIds == (0...6).map { "m-\($0)" }, "each message once, in order")
                #expect(connection.connectionCount >= 2)
            }
        }
    }

    @Test("the server restarts mid-stream: messages sent before the client is back arrive once")
    func serverRestarts() async throws {
        try await TestChatServer.withServer { server in
            let bot = server.client(as: "bot")
            let alice = server.client(as: "alice")
            try await withEventConnection(bot, user: "bot") { connection, collector in
                try await connection.watch("messaging:restart")
                try await alice.addMembers(["alice"], to: "messaging:restart")
                try await alice.channel("messaging:restart").sendMessage(text: "before", id: "r-0")
                try await collector.wait { $0.contains { $0.message?.id == "r-0" } }
                try await server.restart()
                // Sent right away: the bot's connection is still reconnecting.
                for index in 1...3 { try await alice.channel("messaging:restart").sendMessage(text: "while away \(index)", id: "r-\(index)") }
                try await collector.wait { $0.filter { $0.type == .messageNew }.count >= 4 }
                try await Task.sleep(for: .milliseconds(300))
                #expect(
                    collector.newMessageIds == ["r-0", "r-1", "r-2", "r-3"],
                    "events: \(collector.events.map { "\($0.type.rawValue) \($0.message?.id ?? "-") \($0.createdAt.map { RFC3339.string(from: $0) } ?? "no time")" })")
            }
        }
    }

    @Test("a server that stops sending health checks is declared dead and the client reconnects")
    func silentServer() async throws {
        try await TestChatServer.withServer { server in
            let bot = server.client(as: "bot")
            let configuration = EventConnection.Configuration(
                heartbeatInterval: .seconds(1), serverHealthCheckInterval: .seconds(1), connectTimeout: .seconds(2))
            try await withEventConnection(bot, user: "bot", configuration: configuration) { connection, _ in
                await server.server.silence("bot")
                let clock = ContinuousClock()
                let start = clock.now
                while connection.state != .connecting, clock.now - start < .seconds(10) {
                    try await Task.sleep(for: .milliseconds(20))
                }
                let declaredDeadAfter = clock.now - start
                #expect(connection.state == .connecting, "the silent connection is given up")
                #expect(declaredDeadAfter >= .seconds(2), "not before two health checks were missed (\(declaredDeadAfter))")
                // Three seconds plus the close, which took 5.4 s under ThreadSanitizer with the
                // whole suite running on two cores; a connection left to TCP would take minutes.
                #expect(declaredDeadAfter < .seconds(8), "soon after two were missed (\(declaredDeadAfter))")
                await server.server.silence("bot", false)
                while connection.connectionCount < 2, clock.now - start < .seconds(15) {
                    try await Task.sleep(for: .milliseconds(20))
                }
                await connection.waitUntilConnected()
                #expect(connection.connectionCount >= 2, "a new connection once the server answers again")
            }
        }
    }

    @Test("non-JSON frames and a 10 MB frame do not stop the connection")
    func badFrames() async throws {
        try await TestChatServer.withServer { server in
            let bot = server.client(as: "bot")
            let alice = server.client(as: "alice")
            try await withEventConnection(bot, user: "bot") { connection, collector in
                try await connection.watch("messaging:frames")
                try await alice.addMembers(["alice"], to: "messaging:frames")
                await server.server.sendRawFrame("this is { not json", toUser: "bot")
                await server.server.sendRawFrame(#"{"no_type":true}"#, toUser: "bot")
                await server.server.sendRawFrame(String(repeating: "y", count: 10 * 1024 * 1024), toUser: "bot")
                try await alice.channel("messaging:frames").sendMessage(text: "still here", id: "f-1")
                try await collector.wait { $0.contains { $0.message?.id == "f-1" } }
                #expect(collector.newMessageIds == ["f-1"])
            }
        }
    }

    @Test("HTTP 500 is retried for safe calls; 429 waits for the reset; other errors carry code, status and message")
    func httpErrors() async throws {
        try await TestChatServer.withServer { server in
            let recorder = RecordingHTTPTransport()
            // No outage tolerance: a 500 that lasts fails after maximumAttempts (OutageToleranceTests outlasts them).
            let client = server.client(as: "alice", http: recorder, outageTolerance: .zero)
            try await client.queryChannel("messaging:errors", members: ["alice"])
            server.server.injectFault(InjectedFault(pathContains: "/app", status: 500, count: 2))
            _ = try await client.appSettings(refresh: true)
            #expect(recorder.count("GET", "/app") == 3, "two 500s, then success")

            server.server.injectFault(InjectedFault(pathContains: "/message", status: 429, code: 9, count: 1, resetAfterSeconds: 2))
            let clock = ContinuousClock()
            let start = clock.now
            let sent = try await client.channel("messaging:errors").sendMessage(text: "after the limit")
            #expect(sent.text == "after the limit")
            // The reset is a whole Unix second 2 s ahead of the answer's second: at least 1 s away.
            #expect(clock.now - start >= .milliseconds(950), "it waited for the rate-limit reset")
            #expect(recorder.count("POST", "/channels/messaging/errors/message") == 2, "one 429, then success")

            server.server.injectFault(InjectedFault(pathContains: "/app", status: 500, count: 10))
            await #expect {
                _ = try await client.appSettings(refresh: true)
            } throws: { error in
                guard let error = error as? ChatClientError else { return false }
                return error.code == .api && error.httpStatus == 500 && error.streamCode == -1
            }
            await #expect {
                _ = try await client.getMessage("nope")
            } throws: { error in
                guard let error = error as? ChatClientError else { return false }
                return error.streamCode == 16 && error.httpStatus == 404 && error.message.contains("does not exist")
            }
        }
    }

    @Test("a retried send with the same id is stored once")
    func idempotentSend() async throws {
        try await TestChatServer.withServer { server in
            let client = server.client(as: "alice")
            try await client.queryChannel("messaging:once", members: ["alice"])
            let first = try await client.channel("messaging:once").sendMessage(text: "once", id: "same-id")
            let second = try await client.channel("messaging:once").sendMessage(text: "once", id: "same-id")
            #expect(first.id == second.id)
            let state = try await client.queryChannel("messaging:once")
            #expect(state.messages.map(\.id) == ["same-id"])
        }
    }

    @Test("a custom field named like a server field is refused before sending, naming the field; nothing is sent")
    func serverOwnedCustomField() async throws {
        let http = RecordingHTTPTransport()
        try await TestChatServer.withServer { server in
            let client = server.client(as: "alice", http: http)
            try await client.queryChannel("messaging:once", members: ["alice"])
            let before = http.count("POST", "/channels/messaging/once/message")
            await #expect {
                try await client.channel("messaging:once").sendMessage(text: "hi", extraData: ["moderation": "mine", "mood": "ok"])
            } throws: { error in
                let error = error as? ChatClientError
                return error?.code == .invalidRequest && error?.message.contains("moderation is a name the server uses") == true
            }
            await #expect(throws: ChatClientError.self) {
                try await client.channel("messaging:once").sendMessage(text: "hi", extraData: ["user": ["id": "mallory"]])
            }
            #expect(http.count("POST", "/channels/messaging/once/message") == before)
            let sent = try await client.channel("messaging:once").sendMessage(text: "hi", extraData: ["mood": "ok"])
            #expect(sent.extraData["mood"] == "ok")
        }
    }

    @Test("uploads over the limit, of a blocked type, or of a missing file are refused before any upload request")
    func uploadPreflight() async throws {
        try await TestChatServer.withServer { server in
            let recorder = RecordingHTTPTransport()
            let client = server.client(as: "alice", http: recorder)
            try await client.queryChannel("messaging:pre", members: ["alice"])
            try await client.updateAppSettings([
                "file_upload_config": ["size_limit": 1000, "blocked_file_extensions": [".exe"]],
                "image_upload_config": ["allowed_mime_types": ["image/png"]],
            ])
            _ = try await client.appSettings(refresh: true)
            let scratch = try ScratchFolder("client")
            let channel = client.channel("messaging:pre")
            await #expect {
                try await channel.sendMessage(attachments: [try AnyAttachmentPayload(localFileURL: try scratch.file("big.txt", bytes: 5000), attachmentType: .file)])
            } throws: { error in
                guard let error = error as? ChatClientError else { return false }
                return error.code == .uploadRejected && error.message.contains("big.txt is 4.9 KB (5000 bytes), over the upload limit of 1000 bytes; nothing was uploaded")
            }
            await #expect {
                try await channel.sendMessage(attachments: [try AnyAttachmentPayload(localFileURL: try scratch.file("setup.exe", bytes: 10), attachmentType: .file)])
            } throws: { ($0 as? ChatClientError)?.message.contains("the app blocks .exe files") == true }
            await #expect {
                _ = try await channel.uploadAttachment(localFileURL: try scratch.file("photo.jpg", bytes: 10), type: .image)
            } throws: { ($0 as? ChatClientError)?.message.contains("not image/jpeg") == true }
            await #expect {
                _ = try await channel.uploadAttachment(localFileURL: scratch.path("gone.pdf"), type: .file)
            } throws: { error in
                guard let error = error as? ChatClientError else { return false }
                return error.code == .uploadRejected && error.message.contains("no file at")
            }
            #expect(recorder.count("POST", "/channels/messaging/pre/file") == 0 && recorder.count("POST", "/channels/messaging/pre/image") == 0)
            #expect(recorder.count("POST", "/channels/messaging/pre/message") == 0, "no message is sent when an attachment is refused")
        }
    }

    @Test("an unreachable server is a transport error carrying the transport's detail")
    func unreachableServer() async throws {
        let client = ChatClient(
            configuration: ChatClientConfiguration(
                apiKey: "k", baseURL: URL(string: "http://127.0.0.1:9")!, credentials: .apiSecret("s"), userId: "u", maximumAttempts: 2,
                outageTolerance: .zero))
        await #expect {
            _ = try await client.appSettings()
        } throws: { error in
            guard let error = error as? ChatClientError else { return false }
            return error.code == .transport && error.transportError?.code == .connectionFailed && error.message.contains("cannot connect")
        }
    }

    @Test("an event connection that cannot connect keeps trying and says why in lastFailure")
    func lastFailure() async throws {
        let client = ChatClient(
            configuration: ChatClientConfiguration(apiKey: "k", baseURL: URL(string: "http://127.0.0.1:9")!, credentials: .apiSecret("s"), userId: "u"))
        let connection = EventConnection(client: client, user: User(id: "u"), configuration: .init(connectTimeout: .seconds(2)))
        #expect(connection.lastFailure == nil)
        let runner = Task { try await connection.run() }
        defer { runner.cancel() }
        try await eventually("a failed attempt is recorded") { connection.lastFailure != nil }
        #expect(connection.state == .connecting, "it keeps trying")
        let failure = try #require(connection.lastFailure as? TransportError)
        #expect(failure.code == .connectionFailed && failure.message.contains("cannot open a WebSocket to 127.0.0.1"))
    }
}
