import ChatBotKitTesting
import ChatClient
import ChatLocking
import ChatModels
import ChatTransport
import CoreMetrics
import Foundation
import Testing

/// The real libcurl transport, with every request it sends written down, so tests can say
/// which calls were (or were not) made.
final class RecordingHTTPTransport: HTTPTransport {
    private let inner = CurlHTTPTransport()
    private let sent = Locked<[String]>([])

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        sent.withLock { $0.append("\(request.method) \(request.url.path)") }
        return try await inner.send(request)
    }

    /// `METHOD /path` of every request so far.
    var requests: [String] { sent.withLock { $0 } }

    func count(_ method: String, _ pathPrefix: String) -> Int {
        requests.filter { $0.hasPrefix("\(method) \(pathPrefix)") }.count
    }
}

extension TestChatServer {
    /// A client authenticated as `userId` with a user token, so the server applies a user's
    /// permissions (the app secret's clients may do anything).
    func userClient(_ userId: String) -> ChatClient {
        client(as: userId) { $0.credentials = .userToken(TokenSigner(secret: apiSecret).userToken(for: userId)) }
    }

    func client(
        as userId: String, http: any HTTPTransport, cdnStorage: (any CDNStorage)? = nil, metricsFactory: (any MetricsFactory)? = nil,
        outageTolerance: Duration = .seconds(600)
    ) -> ChatClient {
        ChatClient(
            configuration: ChatClientConfiguration(
                apiKey: apiKey, baseURL: baseURL, credentials: .apiSecret(apiSecret), userId: userId, outageTolerance: outageTolerance),
            http: http, cdnStorage: cdnStorage, metricsFactory: metricsFactory)
    }
}

/// Collects events of one connection in the background, into a ``Recorder``.
final class EventCollector: Sendable {
    private let recorder = Recorder<Event>()
    private let task: Task<Void, Never>

    init(_ connection: EventConnection) {
        let recorder = recorder
        task = Task {
            for await event in connection.events { recorder.record(event) }
        }
    }

    var events: [Event] { recorder.all }

    /// The ids of new messages, in the order they arrived.
    var newMessageIds: [String] { events.filter { $0.type.carriesNewMessage }.compactMap { $0.message?.id } }

    /// Waits until `condition` holds for the events so far; throws ``WaitTimedOut`` (naming the
    /// types of the events seen by then) after `timeout`.
    func wait(timeout: Duration = .seconds(15), _ condition: ([Event]) -> Bool) async throws {
        try await eventually("the events match (so far: \(events.map(\.type.rawValue)))", timeout: timeout) { condition(events) }
    }

    func stop() { task.cancel() }
}

/// Runs an event connection for the duration of `body`.
func withEventConnection<T: Sendable>(
    _ client: ChatClient, user: String, configuration: EventConnection.Configuration = .init(heartbeatInterval: .seconds(1), serverHealthCheckInterval: .seconds(1)),
    _ body: (EventConnection, EventCollector) async throws -> T
) async throws -> T {
    let connection = EventConnection(client: client, user: User(id: user, name: user.capitalized), configuration: configuration)
    let runner = Task { try await connection.run() }
    let collector = EventCollector(connection)
    defer {
        runner.cancel()
        collector.stop()
    }
    await connection.waitUntilConnected()
    let result = try await body(connection, collector)
    runner.cancel()
    _ = try? await runner.value
    return result
}

/// Expects `call` to be refused by the server with Stream error `code` and a message containing `text`.
func expectRefused<T>(
    _ code: Int, _ text: String, sourceLocation: SourceLocation = #_sourceLocation, _ call: () async throws -> T
) async {
    await #expect(sourceLocation: sourceLocation) {
        _ = try await call()
    } throws: { error in
        guard let error = error as? ChatClientError else { return false }
        return error.streamCode == code && error.message.contains(text)
    }
}
