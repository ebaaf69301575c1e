import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("Custom user events against the dev server")
struct UserEventTests {
    @Test("a user event reaches every connection of its user with its fields, and no one else's")
    func userEvents() async throws {
        try await TestChatServer.withServer { server in
            let backend = server.client(as: "backend")
            try await backend.upsertUsers([User(id: "ann", name: "Ann"), User(id: "bob")])
            try await withEventConnection(server.userClient("ann"), user: "ann") { _, phone in
                try await withEventConnection(server.userClient("ann"), user: "ann") { _, laptop in
                    try await withEventConnection(server.userClient("bob"), user: "bob") { _, bob in
                        try await backend.sendUserEvent("export.ready", to: "ann", extraData: ["file": "runs.csv", "rows": 42])
                        try await backend.sendUserEvent("marker", to: "bob")
                        for connection in [phone, laptop] {
                            try await connection.wait { $0.contains { $0.type.rawValue == "export.ready" } }
                        }
                        let event = try #require(phone.events.first { $0.type.rawValue == "export.ready" })
                        #expect(event.extraData["file"] == "runs.csv" && event.extraData["rows"] == 42)
                        #expect(event.user?.id == "ann" && event.user?.name == "Ann" && event.cid == nil && event.createdAt != nil)
                        try await bob.wait { $0.contains { $0.type.rawValue == "marker" } }
                        #expect(!bob.events.contains { $0.type.rawValue == "export.ready" }, "only its user hears it")
                    }
                }
            }
        }
    }

    @Test("bad user events are refused with what is wrong, and reach no one")
    func badUserEvents() async throws {
        try await TestChatServer.withServer { server in
            let backend = server.client(as: "backend")
            try await backend.upsertUsers([User(id: "ann")])
            try await withEventConnection(server.userClient("ann"), user: "ann") { _, ann in
                await expectRefused(17, "user events can only be sent with a server token") {
                    try await server.userClient("ann").sendUserEvent("export.ready", to: "ann")
                }
                await expectRefused(4, "event with a type is required") { try await backend.sendUserEvent("", to: "ann") }
                await expectRefused(18, "event type message.new cannot be sent by clients") {
                    try await backend.sendUserEvent("message.new", to: "ann")
                }
                await expectRefused(18, "event type notification.mark_read cannot be sent by clients") {
                    try await backend.sendUserEvent("notification.mark_read", to: "ann")
                }
                await expectRefused(4, "a user event belongs to no channel and cannot carry cid") {
                    try await backend.sendUserEvent("export.ready", to: "ann", extraData: ["cid": "messaging:general"])
                }
                await expectRefused(16, "user nobody does not exist") { try await backend.sendUserEvent("export.ready", to: "nobody") }
                try await backend.sendUserEvent("marker", to: "ann")
                try await ann.wait { $0.contains { $0.type.rawValue == "marker" } }
                let heard = ann.events.map(\.type.rawValue).filter { $0 != "health.check" }
                #expect(heard == ["marker"], "nothing refused was sent")
            }
        }
    }
}
