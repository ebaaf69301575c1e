import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Foundation
import Testing

@testable import BotsCLI

@Suite("bots chat says when its connection drops and when it is back")
struct ChatConnectionNoticesTests {
    @Test("an outage is told once when it starts and once when the connection is back; a quick drop by its reconnection alone")
    func outageAndDrop() async throws {
        try await TestChatServer.withServer { server in
            let dora = try await TestUser.join(server, id: "dora", channel: "messaging:general")
            let connection = EventConnection(client: dora.client, user: User(id: "dora"))
            let told = Recorder<String>()
            let notices = ChatConnectionNotices(connection: connection, interval: .milliseconds(50)) { line in told.record(line) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await connection.run() }
                await connection.waitUntilConnected()
                group.addTask { await notices.run() }
                try await Task.sleep(for: .milliseconds(200))
                #expect(told.all.isEmpty, "nothing while connected")

                await server.server.refuseConnections(ofUser: "dora")
                try await eventually("the drop is told") { told.all == [ChatConnectionNotices.lost] }
                try await Task.sleep(for: .milliseconds(300))
                #expect(told.all == [ChatConnectionNotices.lost], "once, however long it lasts")
                await server.server.refuseConnections(ofUser: "dora", false)
                try await eventually("the reconnection is told", timeout: .seconds(30)) {
                    told.all == [ChatConnectionNotices.lost, ChatConnectionNotices.reconnected]
                }
                // A drop the connection mends at once may be over before it is looked at.
                await server.server.dropConnections(ofUser: "dora")
                try await eventually("the second reconnection is told", timeout: .seconds(30)) {
                    told.all.filter { $0 == ChatConnectionNotices.reconnected }.count == 2
                }
                #expect(told.all.last == ChatConnectionNotices.reconnected)
                group.cancelAll()
            }
        }
    }
}
