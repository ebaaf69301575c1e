import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("Threads against the dev server")
struct ThreadTests {
    @Test("queryThreads lists the threads a user takes part in, latest reply first, a page at a time; thread(_:) reads one")
    func threads() async throws {
        try await TestChatServer.withServer { server in
            let ann = server.userClient("ann")
            let admin = server.client(as: "admin")
            for cid: ChannelId in ["messaging:club", "messaging:runs"] { try await admin.queryChannel(cid, members: ["ann", "bob"], createdBy: "admin") }
            let bob = server.userClient("bob")
            let plan = try await ann.channel("messaging:club").sendMessage(text: "plan")
            _ = try await bob.sendMessage(OutgoingMessage(text: "ok", parentId: plan.id), to: "messaging:club")
            let route = try await bob.channel("messaging:runs").sendMessage(text: "route")
            let answer = try await ann.sendMessage(OutgoingMessage(text: "nice", parentId: route.id), to: "messaging:runs")
            let own = try await bob.channel("messaging:runs").sendMessage(text: "bob's alone")
            _ = try await bob.sendMessage(OutgoingMessage(text: "still bob", parentId: own.id), to: "messaging:runs")

            let first = try await ann.queryThreads(limit: 1)
            #expect(first.threads.map(\.parentMessage.id) == [route.id] && first.next != nil, "latest reply first; bob's own thread is not ann's")
            let second = try await ann.queryThreads(limit: 1, next: first.next)
            #expect(second.threads.map(\.parentMessage.id) == [plan.id] && second.next == nil)
            #expect(try await ann.queryThreads(in: "messaging:club").threads.map(\.cid) == ["messaging:club"])
            let thread = try await admin.thread(route.id)
            #expect(thread.replyCount == 1 && thread.latestReplies.map(\.id) == [answer.id] && thread.participantIds == ["bob", "ann"])
            await expectRefused(16, "message \(own.id) has no replies") {
                _ = try await bob.deleteMessage(try #require(try await bob.replies(to: own.id).first).id)
                return try await admin.thread(own.id)
            }
        }
    }
}
