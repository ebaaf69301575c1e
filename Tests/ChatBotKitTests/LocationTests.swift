import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

/// Records the locations that pass, as a user's middleware would see them.
private struct LocationLog: BotMiddleware {
    let recorder: Recorder<String>
    func handle(_ message: Message, context: BotContext, next: @Sendable (Message, BotContext) async throws -> Void) async throws {
        if case .location(_, let change) = context.trigger { recorder.record("middleware saw a location \(change.rawValue)") }
        try await next(message, context)
    }
}

@Suite("Shared locations: a bot hears locations shared, moved and stopped")
struct LocationTests {
    @Test("a live location shared (after the message's handlers), moved twice and stopped reaches onLocation once each, in order, through middleware; an edit stays an edit")
    func liveLocation() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "tracker")
            bot.use(LocationLog(recorder: recorder))
            bot.onLocation { location, context in
                guard case .location(_, let change) = context.trigger else { return }
                recorder.record("\(context.message.user?.id ?? "?") \(change.rawValue) at \(location.latitude), \(location.longitude)")
            }
            bot.onMessage { context in recorder.record("message: \(context.message.text)") }
            bot.onMessageUpdated { context in recorder.record("edit: \(context.message.text)") }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let channel = ann.client.channel("messaging:general")
                let sent = try await channel.shareLocation(latitude: 1, longitude: 2, until: Date().addingTimeInterval(600), text: "run")
                try await recorder.wait { $0.contains("ann shared at 1.0, 2.0") }
                try await ann.client.updateLiveLocation(sent.id, latitude: 1.001, longitude: 2)
                try await recorder.wait { $0.contains("ann moved at 1.001, 2.0") }
                try await ann.client.partialUpdateMessage(sent.id, set: ["text": "ride"])
                try await recorder.wait { $0.contains("edit: ride") }
                try await ann.client.updateLiveLocation(sent.id, latitude: 1.002, longitude: 2.001)
                try await recorder.wait { $0.contains("ann moved at 1.002, 2.001") }
                try await ann.client.stopLiveLocation(sent.id)
                try await recorder.wait { $0.contains { $0.hasPrefix("ann stopped") } }
                _ = try await ann.send(text: "done")
                try await recorder.wait { $0.contains("message: done") }
                #expect(
                    recorder.all == [
                        "message: run", "middleware saw a location shared", "ann shared at 1.0, 2.0",
                        "middleware saw a location moved", "ann moved at 1.001, 2.0",
                        "edit: ride",
                        "middleware saw a location moved", "ann moved at 1.002, 2.001",
                        "middleware saw a location stopped", "ann stopped at 1.002, 2.001",
                        "message: done",
                    ], "the message sharing it reaches onMessage first, as any message")
            }
        }
    }

    @Test("a bot without location handlers takes a message sharing one as any message, and no moves at all")
    func withoutLocationHandlers() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "plain")
            bot.onMessage { context in recorder.record("message: \(context.message.text) \(context.message.sharedLocation?.latitude ?? 0)") }
            bot.onMessageUpdated { context in recorder.record("edit: \(context.message.text)") }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let sent = try await ann.client.channel("messaging:general").shareLocation(
                    latitude: 5, longitude: 6, until: Date().addingTimeInterval(600), text: "here")
                try await ann.client.updateLiveLocation(sent.id, latitude: 5.5)
                try await ann.client.partialUpdateMessage(sent.id, set: ["text": "there"])
                try await recorder.wait { $0.contains("edit: there") }
                #expect(recorder.all == ["message: here 5.0", "edit: there"], "the move is neither a message nor an edit")
            }
        }
    }
}
