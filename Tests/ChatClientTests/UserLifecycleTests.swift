import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("Deactivating, deleting and restoring users, and bans that delete messages, against the dev server")
struct UserLifecycleTests {
    @Test("a deactivated user can neither act nor connect, its messages leave with one user.messages.deleted per channel, and come back with it")
    func deactivateAndReactivate() async throws {
        try await TestChatServer.withServer { server in
            let ann = server.userClient("ann")
            let moderator = server.client(as: "mod")
            for cid: ChannelId in ["messaging:club", "messaging:runs"] {
                try await moderator.join(cid, as: "ann")
                try await moderator.join(cid, as: "mod")
            }
            let first = try await ann.channel("messaging:club").sendMessage(text: "first")
            let second = try await ann.channel("messaging:runs").sendMessage(text: "second")
            let kept = try await moderator.channel("messaging:club").sendMessage(text: "the moderator's")
            try await withEventConnection(moderator, user: "mod") { connection, collector in
                try await connection.watch("messaging:club")
                try await connection.watch("messaging:runs")
                let deactivated = try await moderator.deactivateUser("ann", markingMessagesDeleted: true, by: "mod")
                #expect(deactivated.id == "ann" && deactivated.deactivatedAt != nil)
                try await collector.wait { events in events.filter { $0.type == .userMessagesDeleted }.count == 2 && events.contains { $0.type == .userDeactivated } }
                let deletions = collector.events.filter { $0.type == .userMessagesDeleted }
                #expect(Set(deletions.compactMap(\.cid)) == ["messaging:club", "messaging:runs"])
                #expect(deletions.allSatisfy { $0.user?.id == "ann" && $0.hardDelete == false && $0.createdAt != nil })
                #expect(collector.events.filter { $0.type == .messageDeleted }.isEmpty, "no message.deleted for each, as on the service")
                #expect(try await moderator.getMessage(first.id).type == .deleted)
                #expect(try await moderator.getMessage(second.id).type == .deleted)
                #expect(try await moderator.getMessage(kept.id).type == .regular, "only ann's messages")
                await expectRefused(17, "user ann is deactivated; reactivate it with POST /users/ann/reactivate") {
                    _ = try await ann.channel("messaging:club").sendMessage(text: "still here?")
                }
                await expectRefused(4, "user ann is already deactivated") { try await moderator.deactivateUser("ann") }

                let reactivated = try await moderator.reactivateUser("ann", restoringMessages: true, name: "Ann", by: "mod")
                #expect(reactivated.deactivatedAt == nil && reactivated.name == "Ann")
                try await collector.wait { $0.filter { $0.type == .messageUndeleted }.count == 2 }
                #expect(try await moderator.getMessage(first.id).type == .regular)
                #expect(try await moderator.getMessage(second.id).text == "second")
                #expect(try await ann.channel("messaging:club").sendMessage(text: "back").text == "back")
                await expectRefused(4, "user ann is not deactivated") { try await moderator.reactivateUser("ann") }
            }
        }
    }

    @Test("a deleted user comes back with restoreUsers unless deleted for good; a ban with deletingMessages deletes its messages")
    func deleteRestoreAndBan() async throws {
        try await TestChatServer.withServer { server in
            let ann = server.userClient("ann")
            let moderator = server.client(as: "mod")
            try await moderator.join("messaging:club", as: "ann")
            try await moderator.join("messaging:club", as: "mod")
            try await withEventConnection(moderator, user: "mod") { connection, collector in
                try await connection.watch("messaging:club")
                let spam = try await ann.channel("messaging:club").sendMessage(text: "spam")
                let deleted = try await moderator.deleteUser("ann", messages: .soft)
                #expect(deleted.deletedAt != nil)
                try await collector.wait { events in events.contains { $0.type == .userDeleted } && events.contains { $0.type == .userMessagesDeleted } }
                let announcement = try #require(collector.events.first { $0.type == .userDeleted })
                #expect(announcement.user?.id == "ann" && announcement.extraData["mark_messages_deleted"] == true)
                #expect(try await moderator.getMessage(spam.id).type == .deleted)
                await expectRefused(17, "user ann was deleted; restore it with POST /users/restore") { _ = try await ann.queryChannel("messaging:club") }

                try await moderator.restoreUsers(["ann"])
                let again = try await ann.channel("messaging:club").sendMessage(text: "spam again")
                try await moderator.banUser("ann", in: "messaging:club", deletingMessages: .hard, as: "mod")
                try await collector.wait { $0.contains { $0.type == .userMessagesDeleted && $0.hardDelete == true } }
                await expectRefused(16, "message with id \(again.id) does not exist") { _ = try await moderator.getMessage(again.id) }
                await expectRefused(16, "message with id \(spam.id) does not exist") { _ = try await moderator.getMessage(spam.id) }
                try await moderator.unbanUser("ann", in: "messaging:club")

                try await moderator.deleteUser("ann", hard: true)
                await expectRefused(4, "user ann was deleted for good and cannot be restored") { try await moderator.restoreUsers(["ann"]) }
                #expect(try await moderator.queryChannel("messaging:club").members.map(\.userId) == ["mod"], "a hard deletion ends its memberships")
            }
        }
    }

    @Test("the event connection of a user deactivated while connected ends for good, saying why, instead of reconnecting forever")
    func connectionOfDeactivatedUser() async throws {
        try await TestChatServer.withServer { server in
            let ann = server.userClient("ann")
            let connection = EventConnection(
                client: ann, user: User(id: "ann"), configuration: .init(heartbeatInterval: .seconds(1), serverHealthCheckInterval: .seconds(1)))
            let runner = Task { try await connection.run() }
            defer { runner.cancel() }
            await connection.waitUntilConnected()
            try await server.client(as: "mod").deactivateUser("ann")
            let ending = await runner.result
            #expect(throws: ChatClientError.self) { try ending.get() }
            if case .failure(let error as ChatClientError) = ending {
                #expect(error.code == .connectionRefused && error.streamCode == 17)
                #expect(error.message.contains("user ann is deactivated; reactivate it with POST /users/ann/reactivate"))
            }
        }
    }

    @Test("bulk deletions and deactivations answer a task that says, per user, ok or why not")
    func bulkTasks() async throws {
        try await TestChatServer.withServer { server in
            let moderator = server.client(as: "mod")
            for user in ["ann", "bob", "cem"] { try await moderator.join("messaging:club", as: user) }
            let spam = try await server.userClient("ann").channel("messaging:club").sendMessage(text: "spam")
            let deletion = try await moderator.task(try await moderator.deleteUsers(["ann", "ghost"], messages: .soft))
            #expect(deletion.isFinished && deletion.status == "completed")
            #expect(deletion.result["ann"] == "ok")
            #expect(deletion.result["ghost"]?.stringValue?.contains("user ghost does not exist") == true)
            #expect(try await moderator.getMessage(spam.id).type == .deleted)

            let deactivation = try await moderator.task(try await moderator.deactivateUsers(["bob", "cem"], by: "mod"))
            #expect(deactivation.result == ["bob": "ok", "cem": "ok"])
            await expectRefused(17, "user bob is deactivated") { _ = try await server.userClient("bob").queryChannel("messaging:club") }
            await expectRefused(4, "user: hard needs messages: hard") { try await moderator.deleteUsers(["bob"], hard: true) }
            await expectRefused(16, "task nothing does not exist") { try await moderator.task("nothing") }
        }
    }

    @Test("bad lifecycle calls are refused with what is wrong, and change nothing")
    func badCalls() async throws {
        try await TestChatServer.withServer { server in
            let ann = server.userClient("ann")
            let moderator = server.client(as: "mod")
            try await moderator.join("messaging:club", as: "ann")
            await expectRefused(16, "user ghost does not exist") { try await moderator.deactivateUser("ghost") }
            await expectRefused(16, "user ghost does not exist") { try await moderator.deleteUser("ghost") }
            await expectRefused(4, "user ann is not deleted") { try await moderator.restoreUsers(["ann"]) }
            await expectRefused(17, "users can only be deactivated with a server token") { try await ann.deactivateUser("ann") }
            await expectRefused(17, "users can only be deleted with a server token") { try await ann.deleteUser("ann") }
            #expect(try await ann.channel("messaging:club").sendMessage(text: "still fine").text == "still fine")
        }
    }
}
