import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Foundation
import Testing

@Suite("Channel exports against the dev server")
struct ChannelExportTests {
    @Test("an export holds the channel, its members and its messages oldest first, thread replies and deleted ones included")
    func exportsAChannel() async throws {
        try await TestChatServer.withServer { server in
            let admin = server.client(as: "admin")
            try await admin.upsertUsers([User(id: "ann", name: "Ann"), User(id: "bob")])
            for user in ["ann", "bob"] { try await admin.join("messaging:club", as: user) }
            let channel = admin.channel("messaging:club")
            let route = FileAttachmentPayload(title: "route.gpx", assetURL: URL(string: "https://example.com/route.gpx")!)
            let run = try await channel.sendMessage(text: "morning run", attachments: [AnyAttachmentPayload(payload: route)], as: "ann")
            let reply = try await admin.sendMessage(OutgoingMessage(text: "nice", parentId: run.id), to: "messaging:club", as: "bob")
            let oops = try await channel.sendMessage(text: "wrong room", as: "bob")
            _ = try await admin.deleteMessage(oops.id)

            let export = try await admin.exportChannel("messaging:club")
            #expect(export.channel.cid == "messaging:club")
            #expect(Set(export.members.map(\.userId)) == ["ann", "bob"])
            #expect(export.messages.map(\.id) == [run.id, reply.id, oops.id])
            #expect(export.messages[0].user?.name == "Ann")
            #expect(export.messages[0].fileAttachments.map(\.payload.title) == ["route.gpx"])
            #expect(export.messages[1].parentId == run.id)
            #expect(export.messages[2].type == .deleted)

            let window = try await admin.exportChannel("messaging:club", since: run.createdAt, until: oops.createdAt)
            #expect(window.messages.map(\.id) == [reply.id], "after since and before until")

            _ = try await channel.truncate()
            #expect(try await admin.exportChannel("messaging:club").messages.isEmpty, "truncated messages are left out")
            let taskId = try await admin.exportChannels([ChannelExportRequest("messaging:club")], includeTruncatedMessages: true, clearDeletedMessageText: true)
            let file = try await admin.downloadChannelExport(taskId)
            defer { try? FileManager.default.removeItem(at: file) }
            let kept = try #require(try ChannelExport.read(from: file).first)
            #expect(kept.messages.map(\.id) == [run.id, reply.id, oops.id] && kept.messages[2].text.isEmpty)
        }
    }

    @Test("the file's link is signed afresh on each read, so an export downloads with links that live two seconds")
    func freshLinks() async throws {
        try await TestChatServer.withServer(configure: { $0.linkLifetime = .seconds(2) }) { server in
            let admin = server.client(as: "admin") { $0.linkRefreshMargin = .zero }
            try await admin.upsertUsers([User(id: "ann")])
            try await admin.join("messaging:club", as: "ann")
            _ = try await admin.channel("messaging:club").sendMessage(text: "hello", as: "ann")
            let taskId = try await admin.exportChannels([ChannelExportRequest("messaging:club")])
            let first = try await admin.channelExport(taskId)
            #expect(first.status == "completed" && first.isFinished && first.error == nil)
            let stale = try #require(first.url)
            // `Expires` is in whole seconds: a link signed now lives between one and two.
            try await Task.sleep(for: .milliseconds(2_100))
            #expect(SignedLink(stale).isExpired())
            let fresh = try #require(try await admin.channelExport(taskId).url)
            #expect(fresh != stale && !SignedLink(fresh).isExpired())
            let file = try await admin.downloadChannelExport(taskId)
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(try ChannelExport.read(from: file).first?.messages.map(\.text) == ["hello"])
        }
    }

    @Test("bad exports are refused with the reason, and a file that is not an export names its bad line")
    func refusals() async throws {
        try await TestChatServer.withServer { server in
            let admin = server.client(as: "admin")
            try await admin.upsertUsers([User(id: "ann")])
            try await admin.join("messaging:club", as: "ann")
            await #expect {
                _ = try await admin.exportChannels([])
            } throws: { error in
                (error as? ChatClientError)?.message == "an export takes 1 to 25 channels, not 0"
            }
            let many = (1...26).map { ChannelExportRequest(ChannelId(type: .messaging, id: "c\($0)")) }
            await #expect(throws: ChatClientError.self) { _ = try await admin.exportChannels(many) }
            await expectRefused(4, "channel messaging:nope does not exist") { try await admin.exportChannel("messaging:nope") }
            await expectRefused(16, "task no-such-export does not exist") { try await admin.channelExport("no-such-export") }
            await expectRefused(17, "channels can only be exported with a server token") {
                try await server.userClient("ann").exportChannels([ChannelExportRequest("messaging:club")])
            }
            _ = try await admin.channel("messaging:club").delete()
            await expectRefused(4, "include_soft_deleted_channels: true exports it") { try await admin.exportChannel("messaging:club") }
            let taskId = try await admin.exportChannels([ChannelExportRequest("messaging:club")], includeSoftDeletedChannels: true)
            #expect(try await admin.channelExport(taskId).url != nil)

            let scratch = try ScratchFolder("export")
            let file = try scratch.write(
                Data("{\"channel\":{\"id\":\"a\",\"type\":\"messaging\",\"cid\":\"messaging:a\"},\"messages\":[]}\n{\"messages\":[]}\n".utf8), as: "export.json")
            #expect {
                _ = try ChannelExport.read(from: file)
            } throws: { error in
                (error as? ChatClientError)?.message.contains("line 2 of the export file") == true
                    && (error as? ChatClientError)?.message.contains("the required field channel is missing") == true
            }
        }
    }
}
