import ChatBotKit
import ChatBotKitAI
import ChatBotKitTesting
import ChatLocking
import Foundation
import Testing

/// The model server all the real-model tests of a run share (started on first use; writing the
/// model and loading it takes a second or two).
actor SharedModelServer {
    static let shared = SharedModelServer()
    private var server: TestModelServer?

    func get() async throws -> TestModelServer {
        if let server, server.isRunning { return server }
        let started = try await TestModelServer.start()
        server = started
        return started
    }
}

/// A model on the shared server.
func tinyModel() async throws -> OpenAICompatibleModel {
    let server = try await SharedModelServer.shared.get()
    return OpenAICompatibleModel(url: server.url, model: server.model)
}

/// The events a user watching a channel gets, collected as they arrive, with the time each came.
final class Watcher: Sendable {
    let events = Locked<[(event: Event, at: ContinuousClock.Instant)]>([])

    /// The events of the streamed reply `id` (its message events and its indicator events).
    func events(ofReply id: String) -> [(event: Event, at: ContinuousClock.Instant)] {
        events.withLock { $0 }.filter { entry in
            entry.event.message?.id == id || entry.event.extraData["message_id"]?.stringValue == id
        }
    }

    /// The first AI reply's id.
    var replyId: String? {
        events.withLock { $0 }.first { $0.event.type == .messageNew && $0.event.message?.extraData["ai_generated"]?.boolValue == true }?.event.message?.id
    }

    func waitFor(_ what: String, timeout: Duration = .seconds(60), _ condition: @escaping @Sendable ([Event]) -> Bool) async throws {
        try await eventually(what, timeout: timeout) { condition(events.withLock { $0.map(\.event) }) }
    }
}

/// Runs a connection of `user` watching `cid` for the duration of `body`.
func watching<T: Sendable>(_ server: TestChatServer, as user: String, _ cid: ChannelId, _ body: (Watcher) async throws -> T) async throws -> T {
    let connection = EventConnection(
        client: server.client(as: user), user: User(id: user, name: user.capitalized),
        configuration: .init(heartbeatInterval: .seconds(1), serverHealthCheckInterval: .seconds(1)))
    let watcher = Watcher()
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await connection.run() }
        group.addTask {
            for await event in connection.events { watcher.events.withLock { $0.append((event, .now)) } }
        }
        await connection.waitUntilConnected()
        try await connection.watch(cid)
        do {
            let result = try await body(watcher)
            group.cancelAll()
            return result
        } catch {
            group.cancelAll()
            throw error
        }
    }
}

/// The AI states of the reply's `ai_indicator.update` events, and `clear` for its clears, in order.
func indicatorStates(_ events: [(event: Event, at: ContinuousClock.Instant)]) -> [String] {
    events.compactMap { entry in
        switch entry.event.type {
        case .aiIndicatorUpdate: entry.event.extraData["ai_state"]?.stringValue
        case .aiIndicatorClear: "clear"
        default: nil
        }
    }
}
