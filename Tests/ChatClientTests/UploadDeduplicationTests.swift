import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatLocking
import ChatModels
import ChatTransport
import Foundation
import Prometheus
import Testing

@Suite("DeduplicatingCDNStorage: identical content is uploaded once, and a link is reused only while it works")
struct UploadDeduplicationTests {
    @Test("the same bytes, name, channel and kind upload once; changing any of them uploads again")
    func sameContentUploadsOnce() async throws {
        try await TestChatServer.withServer { server in
            let http = RecordingHTTPTransport()
            let registry = PrometheusCollectorRegistry()
            let client = server.client(
                as: "alice", http: http, cdnStorage: DeduplicatingCDNStorage(), metricsFactory: PrometheusMetricsFactory(registry: registry))
            try await client.queryChannel("messaging:files", members: ["alice"])
            try await client.queryChannel("messaging:other", members: ["alice"])
            let scratch = try ScratchFolder("client")
            let report = try scratch.file("report.pdf", bytes: 300_000)

            let first = try await client.uploadAttachment(localFileURL: report, type: .file, to: "messaging:files")
            let fractions = Recorder<Double>()
            let second = try await client.uploadAttachment(
                localFileURL: report, type: .file, to: "messaging:files", progress: { fraction in fractions.record(fraction) })
            #expect(second.fileURL == first.fileURL)
            #expect(fractions.all == [1], "a reused upload reports that it is done")
            #expect(http.count("POST", "/channels/messaging/files/file") == 1)
            #expect(http.count("HEAD", "/files/") == 1, "the link was checked once, before it was reused")
            #expect(try await CurlHTTPTransport().send(TransportRequest(method: "GET", url: second.fileURL)).body == Data(contentsOf: report))

            // Each of these differs in one thing, so each is a new upload with a link of its own.
            var links: Set<URL> = [first.fileURL]
            let renamed = scratch.path("copy.pdf")
            try FileManager.default.copyItem(at: report, to: renamed)
            links.insert(try await client.uploadAttachment(localFileURL: renamed, type: .file, to: "messaging:files").fileURL)
            links.insert(try await client.uploadAttachment(localFileURL: report, type: .file, to: "messaging:other").fileURL)
            var changed = try Data(contentsOf: report)
            changed[1000] ^= 0xFF
            try changed.write(to: report)
            links.insert(try await client.uploadAttachment(localFileURL: report, type: .file, to: "messaging:files").fileURL)
            let picture = try scratch.file("chart.png", bytes: 5_000)
            let asFile = try await client.uploadAttachment(localFileURL: picture, type: .file, to: "messaging:files")
            let asImage = try await client.uploadAttachment(localFileURL: picture, type: .image, to: "messaging:files")
            links.formUnion([asFile.fileURL, asImage.fileURL])
            #expect(links.count == 6)
            #expect(http.uploads == 6)

            let samples = MetricSamples(registry.emitToString())
            #expect(samples["chatbotkit_upload_reuses_total", ["kind": "file", "outcome": "reused"]] == 1)
            #expect(samples["chatbotkit_upload_bytes_reused_total", ["kind": "file"]] == 300_000)
            #expect(samples["chatbotkit_uploads_total", ["kind": "file", "outcome": "uploaded"]] == 5)
        }
    }

    @Test("messages sharing an upload each keep their own title and fields, and point at the one file")
    func messagesShareOneUpload() async throws {
        try await TestChatServer.withServer { server in
            let http = RecordingHTTPTransport()
            let client = server.client(as: "alice", http: http, cdnStorage: DeduplicatingCDNStorage())
            try await client.queryChannel("messaging:files", members: ["alice"])
            let channel = client.channel("messaging:files")
            let scratch = try ScratchFolder("client")
            let chart = try scratch.file("chart.png", bytes: 20_000)

            let monday = try await channel.sendMessage(
                text: "monday", attachments: [try AnyAttachmentPayload(localFileURL: chart, attachmentType: .image, extraData: ["week": 1])])
            let tuesday = try await channel.sendMessage(
                text: "tuesday", attachments: [try AnyAttachmentPayload(localFileURL: chart, attachmentType: .image, extraData: ["week": 2])])
            #expect(http.count("POST", "/channels/messaging/files/image") == 1)
            let mondayImage = try #require(monday.attachments.first?.rawJSON)
            let tuesdayImage = try #require(tuesday.attachments.first?.rawJSON)
            #expect(mondayImage["week"] == 1 && tuesdayImage["week"] == 2)
            #expect(tuesdayImage["title"] == "chart.png")
            let mondayLink = try #require(mondayImage["image_url"]?.stringValue.flatMap(URL.init(string:)))
            let tuesdayLink = try #require(tuesdayImage["image_url"]?.stringValue.flatMap(URL.init(string:)))
            #expect(SignedLink(mondayLink).unsignedURL == SignedLink(tuesdayLink).unsignedURL)
            let copy = try await client.download(tuesday.attachments[0], to: scratch.path("copy.png"))
            #expect(try Data(contentsOf: copy) == Data(contentsOf: chart))
        }
    }

    @Test("a file deleted by someone else is uploaded again, not linked dead; one deleted through the storage is forgotten at once")
    func deletedFilesAreUploadedAgain() async throws {
        try await TestChatServer.withServer { server in
            let http = RecordingHTTPTransport()
            let registry = PrometheusCollectorRegistry()
            let storage = DeduplicatingCDNStorage()
            let client = server.client(
                as: "alice", http: http, cdnStorage: storage, metricsFactory: PrometheusMetricsFactory(registry: registry))
            try await client.queryChannel("messaging:files", members: ["alice", "moderator"])
            let scratch = try ScratchFolder("client")
            let notes = try scratch.file("notes.txt", bytes: 4_000)

            let first = try await client.uploadAttachment(localFileURL: notes, type: .file, to: "messaging:files")
            // Another client, with the plain storage, deletes it (as a moderation bot would).
            try await server.client(as: "moderator").deleteUpload(url: first.fileURL, in: "messaging:files", isImage: false)
            let second = try await client.uploadAttachment(localFileURL: notes, type: .file, to: "messaging:files")
            #expect(second.fileURL != first.fileURL)
            #expect(try await CurlHTTPTransport().send(TransportRequest(method: "GET", url: second.fileURL)).status == 200)
            #expect(http.count("POST", "/channels/messaging/files/file") == 2)
            #expect(MetricSamples(registry.emitToString())["chatbotkit_upload_reuses_total", ["kind": "file", "outcome": "gone"]] == 1)

            try await client.deleteUpload(url: second.fileURL, in: "messaging:files", isImage: false)
            #expect(storage.count == 0)
            let headsBefore = http.count("HEAD", "/files/")
            let third = try await client.uploadAttachment(localFileURL: notes, type: .file, to: "messaging:files")
            #expect(http.count("HEAD", "/files/") == headsBefore, "a forgotten link is not even checked")
            #expect(http.count("POST", "/channels/messaging/files/file") == 3)
            #expect(try await CurlHTTPTransport().send(TransportRequest(method: "GET", url: third.fileURL)).status == 200)
        }
    }

    @Test("a link whose signature has less than minimumRemainingLifetime left is not reused, and is not checked either")
    func expiringLinksAreNotReused() async throws {
        try await TestChatServer.withServer(configure: { $0.linkLifetime = .seconds(600) }) { server in
            let http = RecordingHTTPTransport()
            let registry = PrometheusCollectorRegistry()
            let client = server.client(
                as: "alice", http: http, cdnStorage: DeduplicatingCDNStorage(minimumRemainingLifetime: .seconds(3600)),
                metricsFactory: PrometheusMetricsFactory(registry: registry))
            try await client.queryChannel("messaging:files", members: ["alice"])
            let scratch = try ScratchFolder("client")
            let notes = try scratch.file("notes.txt", bytes: 1_000)
            let first = try await client.uploadAttachment(localFileURL: notes, type: .file, to: "messaging:files")
            let second = try await client.uploadAttachment(localFileURL: notes, type: .file, to: "messaging:files")
            #expect(second.fileURL != first.fileURL)
            #expect(http.count("POST", "/channels/messaging/files/file") == 2 && http.count("HEAD", "/") == 0)
            #expect(MetricSamples(registry.emitToString())["chatbotkit_upload_reuses_total", ["kind": "file", "outcome": "expiring"]] == 1)
        }
    }

    @Test("uploads of the same content at the same time make one upload, every caller's progress ends at 1, and each message keeps its fields")
    func concurrentUploadsShareOne() async throws {
        try await TestChatServer.withServer { server in
            let http = RecordingHTTPTransport()
            let client = server.client(as: "alice", http: http, cdnStorage: DeduplicatingCDNStorage())
            try await client.queryChannel("messaging:files", members: ["alice"])
            let scratch = try ScratchFolder("client")
            let video = try scratch.file("clip.mp4", bytes: 4 * 1024 * 1024)
            let results = try await withThrowingTaskGroup(of: (URL, Double?).self) { group in
                for _ in 0..<5 {
                    group.addTask {
                        let last = Locked<Double?>(nil)
                        let file = try await client.uploadAttachment(
                            localFileURL: video, type: .video, to: "messaging:files", progress: { fraction in last.withLock { $0 = fraction } })
                        return (file.fileURL, last.withLock { $0 })
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(results.map(\.0)).count == 1)
            #expect(results.allSatisfy { $0.1 == 1 })
            #expect(http.count("POST", "/channels/messaging/files/file") == 1)

            // Messages sent at the same time with that file: one upload, and each message keeps
            // its own attachment fields (a caller that joined another's upload gets its link, not
            // its attachment).
            let copy = scratch.path("take.mp4")
            try FileManager.default.copyItem(at: video, to: copy)
            let channel = client.channel("messaging:files")
            let sent = try await withThrowingTaskGroup(of: Message.self) { group in
                for take in 1...3 {
                    group.addTask {
                        try await channel.sendMessage(
                            text: "take \(take)",
                            attachments: [try AnyAttachmentPayload(localFileURL: copy, attachmentType: .video, extraData: ["take": .number(JSONNumber(take))])])
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for message in sent {
                let attachment = try #require(message.attachments.first?.rawJSON)
                #expect(message.text == "take \(attachment["take"]?.intValue ?? 0)", "\(message.text): \(attachment)")
            }
            #expect(Set(sent.compactMap { $0.attachments.first?.rawJSON["asset_url"]?.stringValue.flatMap(URL.init(string:)).map { SignedLink($0).unsignedURL } }).count == 1)
            #expect(http.count("POST", "/channels/messaging/files/file") == 2)
        }
    }

    @Test("the least recently used link goes first once `capacity` are kept; without checksLinks no HEAD is sent")
    func capacityAndUncheckedLinks() async throws {
        try await TestChatServer.withServer { server in
            let http = RecordingHTTPTransport()
            let storage = DeduplicatingCDNStorage(capacity: 2, checksLinks: false)
            let client = server.client(as: "alice", http: http, cdnStorage: storage)
            try await client.queryChannel("messaging:files", members: ["alice"])
            let scratch = try ScratchFolder("client")
            let files = try (0..<3).map { try scratch.file("file-\($0).txt", bytes: 100 + $0) }
            for file in files[0..<2] { _ = try await client.uploadAttachment(localFileURL: file, type: .file, to: "messaging:files") }
            _ = try await client.uploadAttachment(localFileURL: files[0], type: .file, to: "messaging:files")  // now the most recent
            _ = try await client.uploadAttachment(localFileURL: files[2], type: .file, to: "messaging:files")  // file-1 goes
            #expect(storage.count == 2)
            #expect(http.uploads == 3)
            _ = try await client.uploadAttachment(localFileURL: files[0], type: .file, to: "messaging:files")
            #expect(http.uploads == 3, "file-0 was kept")
            _ = try await client.uploadAttachment(localFileURL: files[1], type: .file, to: "messaging:files")
            #expect(http.uploads == 4, "file-1 was not")
            #expect(http.count("HEAD", "/") == 0)
        }
    }

    @Test("a file rewritten with the same size is uploaded again, even when its modification time reads the same (racily clean)")
    func rewrittenFiles() async throws {
        try await TestChatServer.withServer { server in
            let http = RecordingHTTPTransport()
            let client = server.client(as: "alice", http: http, cdnStorage: DeduplicatingCDNStorage(checksLinks: false))
            try await client.queryChannel("messaging:files", members: ["alice"])
            let scratch = try ScratchFolder("client")
            let manager = FileManager.default

            // A settled file (last changed an hour ago), read once and kept, is rewritten in place:
            // its new modification time gives it away.
            let settled = try scratch.file("help.pdf", bytes: 2_000)
            try manager.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: settled.path)
            let first = try await client.uploadAttachment(localFileURL: settled, type: .file, to: "messaging:files")
            #expect(try await client.uploadAttachment(localFileURL: settled, type: .file, to: "messaging:files").fileURL == first.fileURL)
            try Data(repeating: 7, count: 2_000).write(to: settled)
            #expect(try await client.uploadAttachment(localFileURL: settled, type: .file, to: "messaging:files").fileURL != first.fileURL)

            // A file written just now, rewritten with the same size and given back its old
            // stamp (as a coarse file-system clock would leave it): it was never kept, so it is
            // read again.
            let fresh = try scratch.file("report.pdf", bytes: 2_000)
            let stamp = try #require(try manager.attributesOfItem(atPath: fresh.path)[.modificationDate] as? Date)
            let before = try await client.uploadAttachment(localFileURL: fresh, type: .file, to: "messaging:files")
            try Data(repeating: 9, count: 2_000).write(to: fresh)
            try manager.setAttributes([.modificationDate: stamp], ofItemAtPath: fresh.path)
            let after = try await client.uploadAttachment(localFileURL: fresh, type: .file, to: "messaging:files")
            #expect(after.fileURL != before.fileURL)
            #expect(try await CurlHTTPTransport().send(TransportRequest(method: "GET", url: after.fileURL)).body == Data(repeating: 9, count: 2_000))
            #expect(http.uploads == 4)
        }
    }

    @Test("a file that cannot be read is upload_rejected, naming it, and nothing is sent")
    func unreadableFile() async throws {
        try await TestChatServer.withServer { server in
            let http = RecordingHTTPTransport()
            let storage = DeduplicatingCDNStorage()
            let client = server.client(as: "alice", http: http, cdnStorage: storage)
            let missing = URL(fileURLWithPath: "/nonexistent/report.pdf")
            let error = await #expect(throws: ChatClientError.self) {
                try await storage.uploadAttachment(
                    localUrl: missing, options: AttachmentUploadOptions(client: client, cid: "messaging:files", type: .file))
            }
            #expect(error?.code == .uploadRejected)
            #expect(error?.message.contains("/nonexistent/report.pdf") == true)
            #expect(http.requests.isEmpty)
            #expect(storage.count == 0)
        }
    }
}

extension RecordingHTTPTransport {
    /// How many uploads (`POST …/file` or `…/image`) were sent.
    var uploads: Int { requests.filter { $0.hasPrefix("POST ") && ($0.hasSuffix("/file") || $0.hasSuffix("/image")) }.count }
}
