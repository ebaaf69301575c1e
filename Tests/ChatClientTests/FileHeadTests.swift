import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Foundation
import Testing

@Suite("File heads: the first bytes of a file by a range request, link refresh included", .timeLimit(.minutes(2)))
struct FileHeadTests {
    static func bytes(_ count: Int) -> Data { Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / 251) }) }

    /// A message of `user` in messaging:general with one uploaded file of `data`.
    static func postFile(_ data: Data, server: TestChatServer, as user: String) async throws -> (ChatClient, Message) {
        let client = server.client(as: user)
        try await client.upsertUsers([User(id: user)])
        try await client.join("messaging:general", as: user)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("head-\(UUID().uuidString).bin")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let sent = try await client.channel("messaging:general").sendMessage(
            text: "data", attachments: [try AnyAttachmentPayload(localFileURL: file, attachmentType: .file)])
        return (client, sent)
    }

    @Test("only the head is read: the bytes asked for, and the whole file's size from Content-Range")
    func readsTheHead() async throws {
        let data = Self.bytes(3 * 1024 * 1024 + 17)
        try await TestChatServer.withServer { server in
            let (client, sent) = try await Self.postFile(data, server: server, as: "ann")
            let head = try await client.downloadHead(of: sent.attachments[0], length: 1 << 20)
            #expect(head.bytes == data.prefix(1 << 20))
            #expect(head.totalSize == Int64(data.count))
            let all = try await client.downloadHead(of: sent.attachments[0], length: 8 << 20)
            #expect(all.bytes == data && all.totalSize == Int64(data.count), "a file shorter than asked comes whole")
        }
    }

    @Test("an expired link is refreshed by re-reading the message, as downloads are")
    func refreshesAnExpiredLink() async throws {
        let data = Self.bytes(4096)
        try await TestChatServer.withServer(configure: { $0.linkLifetime = .seconds(1) }) { server in
            let (_, sent) = try await Self.postFile(data, server: server, as: "ann")
            // A margin shorter than the links' life, so that the link is used until it expires.
            let client = server.client(as: "ann") { $0.linkRefreshMargin = .milliseconds(100) }
            try await Task.sleep(for: .milliseconds(1_600))
            let link = try #require(sent.attachments[0].fileLink)
            #expect(SignedLink(link).isExpired())
            let head = try await client.downloadHead(of: sent.attachments[0], length: 100)
            #expect(head.bytes == data.prefix(100) && head.totalSize == 4096)
        }
    }

    @Test("a deleted file is a 404 error naming the attachment; a host that ignores Range is read only as far as asked")
    func missingFilesAndPlainHosts() async throws {
        try await TestChatServer.withServer { server in
            let (client, sent) = try await Self.postFile(Self.bytes(100), server: server, as: "ann")
            let link = try #require(sent.attachments[0].fileLink)
            try await client.deleteUpload(url: link, in: "messaging:general", isImage: false)
            let error = await #expect(throws: ChatClientError.self) { _ = try await client.downloadHead(of: sent.attachments[0]) }
            #expect(error?.httpStatus == 404)
            #expect(error?.message.contains("the file host answered HTTP 404") == true, "\(String(describing: error))")
        }
        let big = Self.bytes(5 * 1024 * 1024)
        try await TestWebPages.withPages(["/big.bin": .init(contentType: "application/octet-stream", body: big)]) { pages in
            let client = ChatClient(
                configuration: ChatClientConfiguration(apiKey: "k", baseURL: pages.baseURL, credentials: .apiSecret("a-secret-of-at-least-32-bytes-yes")))
            let attachment = AnyChatMessageAttachment(
                id: AttachmentId(cid: "messaging:general", messageId: "m", index: 0),
                json: ["type": "file", "asset_url": .string(pages.url("/big.bin").absoluteString)])
            let head = try await client.downloadHead(of: attachment, length: 64 * 1024)
            #expect(head.bytes == big.prefix(64 * 1024))
            #expect(head.totalSize == Int64(big.count), "from its Content-Length")
        }
    }
}
