import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import ChatTestSupport
import ChatTransport
import Foundation
import Testing

@Suite("ChatClient against the dev server")
struct ChatClientTests {
    @Test("connect, watch, and receive message.new with typed attachments; custom payloads travel both ways")
    func receiveTypedAttachments() async throws {
        try await TestChatServer.withServer { server in
            let bot = server.client(as: "bot")
            bot.registerAttachment(DocsWorkoutPayload.self)
            let alice = server.client(as: "alice")
            try await bot.upsertUsers([User(id: "bot", name: "Bot"), User(id: "alice", name: "Alice", extraData: ["club": "riverside"])])
            try await withEventConnection(bot, user: "bot") { connection, collector in
                try await connection.watch("messaging:general")
                try await alice.addMembers(["alice"], to: "messaging:general")
                let workout = DocsWorkoutPayload(
                    imageURL: URL(string: "https://path.to/some/great/picture.png"), workoutDistanceMeters: 1412, workoutType: "walk",
                    workoutDurationSeconds: 840, workoutEnergyCal: 75500)
                let sent = try await alice.channel("messaging:general").sendMessage(
                    text: "walked", attachments: [AnyAttachmentPayload(payload: workout)], extraData: ["mood": "great"])
                #expect(sent.attachments(payloadType: DocsWorkoutPayload.self).first?.payload == workout)
                #expect(sent.extraData["mood"] == "great")
                try await collector.wait { $0.contains { $0.type == .messageNew } }
                let event = try #require(collector.events.first { $0.type == .messageNew })
                let message = try #require(event.message)
                #expect(message.id == sent.id && message.user?.id == "alice")
                #expect(message.user?.extraData["club"] == "riverside")
                guard case .decoded(let payload, _) = bot.registry.decode(message.attachments[0]) else {
                    Issue.record("the registered workout payload must decode")
                    return
                }
                #expect(payload as? DocsWorkoutPayload == workout)
            }
        }
    }

    @Test("upload a file with monotonic progress ending at 100%, then download it byte-identical")
    func uploadAndDownload() async throws {
        try await TestChatServer.withServer { server in
            let client = server.client(as: "alice")
            try await client.queryChannel("messaging:files", members: ["alice"])
            let scratch = try ScratchFolder("client")
            let file = try scratch.file("report.pdf", bytes: 2 * 1024 * 1024 + 3)
            let fractions = Recorder<Double>()
            let sent = try await client.channel("messaging:files").sendMessage(
                text: "the report", attachments: [try AnyAttachmentPayload(localFileURL: file, attachmentType: .file)],
                progress: { fraction in fractions.record(fraction) })
            let reported = fractions.all
            #expect(reported == reported.sorted(), "progress never goes backwards")
            #expect(reported.last == 1)
            let attachment = try #require(sent.fileAttachments.first)
            #expect(attachment.title == "report.pdf" && attachment.fileSize == 2 * 1024 * 1024 + 3 && attachment.mimeType == "application/pdf")
            #expect(attachment.assetURL.host == "127.0.0.1")

            var events: [AttachmentFetchEvent] = []
            for try await event in client.fetchAttachment(sent.attachments[0], to: scratch.path("copy.pdf")) {
                events.append(event)
            }
            guard case .completed(let copy)? = events.last else {
                Issue.record("the download must complete")
                return
            }
            #expect(try Data(contentsOf: copy) == Data(contentsOf: file))
            let progress = events.compactMap { event -> Int64? in if case .progress(let bytes, _) = event { return bytes } else { return nil } }
            #expect(progress == progress.sorted() && progress.last == 2 * 1024 * 1024 + 3)
        }
    }

    @Test("expired links are refreshed with one getMessage shared by 10 concurrent downloads")
    func refreshExpiredLinks() async throws {
        try await TestChatServer.withServer(configure: { $0.linkLifetime = .seconds(2) }) { server in
            let recorder = RecordingHTTPTransport()
            let client = server.client(as: "alice", http: recorder)
            try await client.queryChannel("messaging:photos", members: ["alice"])
            let scratch = try ScratchFolder("client")
            let picture = try scratch.file("holiday.png", bytes: 200_000)
            let sent = try await client.channel("messaging:photos").sendMessage(
                attachments: [try AnyAttachmentPayload(localFileURL: picture, attachmentType: .image)])
            let attachment = sent.attachments[0]
            #expect(SignedLink(try #require(sent.imageAttachments.first?.imageURL)).expiresAt != nil)
            try await Task.sleep(for: .milliseconds(2500))
            #expect(SignedLink(try #require(sent.imageAttachments.first?.imageURL)).isExpired())
            let before = recorder.count("GET", "/messages/")
            let copies = try await withThrowingTaskGroup(of: Data.self) { group in
                for index in 0..<10 {
                    group.addTask {
                        try Data(contentsOf: try await client.download(attachment, to: scratch.path("copy-\(index).png")))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(copies.count == 10 && copies.allSatisfy { $0 == (try? Data(contentsOf: picture)) })
            #expect(recorder.count("GET", "/messages/") - before == 1, "exactly one getMessage: \(recorder.requests)")
        }
    }

    @Test("a link that expires within the refresh margin but still works is used when getMessage has nothing fresher")
    func linkInsideTheMargin() async throws {
        // Links live 20 s here and the client refreshes those with under 30 s left, so every
        // link is due for a refresh on arrival. getMessage in the same second signs the same
        // link again; that used to fail as "the same expired link" although it was valid.
        try await TestChatServer.withServer(configure: { $0.linkLifetime = .seconds(20) }) { server in
            let recorder = RecordingHTTPTransport()
            let client = server.client(as: "alice", http: recorder)
            try await client.queryChannel("messaging:margin", members: ["alice"])
            let scratch = try ScratchFolder("client")
            for index in 0..<3 {
                let sent = try await client.channel("messaging:margin").sendMessage(
                    attachments: [try AnyAttachmentPayload(localFileURL: try scratch.file("notes-\(index).txt", bytes: 300), attachmentType: .file)])
                let link = try #require(sent.attachments[0].fileLink)
                #expect(SignedLink(link).isExpired(margin: 30) && !SignedLink(link).isExpired())
                let copy = try await client.download(sent.attachments[0], to: scratch.path("copy-\(index).txt"))
                #expect(try Data(contentsOf: copy).count == 300)
            }
            #expect(recorder.count("GET", "/messages/") == 3, "each download still asked for a fresher link first")
        }
    }

    @Test("a link that is really expired and that getMessage cannot refresh (another host's) is a clear error, with no file left")
    func unrefreshableLink() async throws {
        try await TestChatServer.withServer { server in
            let client = server.client(as: "alice")
            try await client.queryChannel("messaging:stale", members: ["alice"])
            let expired = try #require(URL(string: "https://cdn.example.invalid/report.pdf?Expires=1000&Signature=abc&Key-Pair-Id=k"))
            let sent = try await client.channel("messaging:stale").sendMessage(
                attachments: [AnyAttachmentPayload(payload: FileAttachmentPayload(title: "report.pdf", assetURL: expired))])
            let target = try ScratchFolder("client").url.appendingPathComponent("report.pdf")
            await #expect {
                _ = try await client.download(sent.attachments[0], to: target)
            } throws: { error in
                (error as? ChatClientError)?.code == .downloadFailed && "\(error)".contains("getMessage returned the same expired link")
            }
            #expect(!FileManager.default.fileExists(atPath: target.path))
        }
    }

    @Test("a 403 from the file host also refreshes the link once")
    func refreshOnForbidden() async throws {
        try await TestChatServer.withServer { server in
            let recorder = RecordingHTTPTransport()
            let client = server.client(as: "alice", http: recorder)
            try await client.queryChannel("messaging:tamper", members: ["alice"])
            let scratch = try ScratchFolder("client")
            let sent = try await client.channel("messaging:tamper").sendMessage(
                attachments: [try AnyAttachmentPayload(localFileURL: try scratch.file("a.txt", bytes: 100), attachmentType: .file)])
            // A link whose signature was damaged in storage, but that does not look expired.
            var json = sent.attachments[0].rawJSON
            json["asset_url"] = .string(json["asset_url"]!.stringValue!.replacingOccurrences(of: "Signature=", with: "Signature=x"))
            let damaged = AnyChatMessageAttachment(id: sent.attachments[0].id, json: json)
            // No destination: a new file in the temporary folder, which the caller owns.
            let copy = try await client.download(damaged)
            defer { try? FileManager.default.removeItem(at: copy) }
            #expect(copy.deletingLastPathComponent().standardizedFileURL == FileManager.default.temporaryDirectory.standardizedFileURL)
            #expect(try Data(contentsOf: copy).count == 100)
            #expect(recorder.count("GET", "/messages/") == 1)
        }
    }
}
