import ChatLocking
import ChatModels
import ChatTransport
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// The event connection of one user: a WebSocket that stays up.
///
/// It connects, reads the first `health.check` for the connection id, watches the channels
/// you asked for, and sends a heartbeat every `heartbeatInterval`; two missed health checks
/// declare it dead. Dropped connections come back with Stream's jittered backoff (0.25 s to
/// 25 s); then every watched channel is watched again and `/sync` heals the gap from the last
/// event. Channels are watched a page of 30 per Query Channels call and synced 255 per `/sync`
/// call, so thousands of channels take a few hundred calls (``lastWatchReport`` says what it took). Each event reaches ``events`` once, in order per channel. ``catchUp(since:)`` makes
/// the first connection heal the gap since a given time too.
///
/// Watching gets or creates a channel, so a deleted channel is never watched again: one whose
/// `channel.deleted` arrives stops being watched, and one found gone on reconnecting is
/// dropped and, with server credentials, announced by a `channel.deleted` (the server's own
/// from `/sync` when it has one, else one the connection makes, timed when it found it gone).
///
/// With `watchesMemberChannels` it also follows the user's membership: every channel the user
/// is a member of is watched, whether it joined before connecting, while connected or while
/// disconnected, and one it is removed from stops being watched.
///
/// A `Service`: run it in a `ServiceGroup`, or in a task you cancel.
public final class EventConnection: Service, Sendable {
    /// Timing and buffering.
    public struct Configuration: Sendable {
        /// How often the client sends a health check of its own.
        public var heartbeatInterval: Duration
        /// How often the server sends health checks; two missed ones close the connection.
        public var serverHealthCheckInterval: Duration
        /// Events buffered for a slow reader before reading from the socket pauses.
        public var bufferCapacity: Int
        /// Time allowed to connect and receive the first health check.
        public var connectTimeout: Duration
        /// The reconnect schedule.
        public var backoff: ReconnectBackoff
        /// Whether every channel the user is a member of is watched, besides those asked for:
        /// found on each (re)connection, watched when the user is added to one, and no longer
        /// watched once the user is removed, while connected or not.
        public var watchesMemberChannels: Bool
        /// Whether the first connection also makes the user a member of the channels asked for
        /// (created when missing), in the same paged calls that watch them.
        public var joinsWatchedChannels: Bool

        /// The service's timing: heartbeats every 25 s, server health checks every 30 s.
        public init(
            heartbeatInterval: Duration = .seconds(25), serverHealthCheckInterval: Duration = .seconds(30), bufferCapacity: Int = 1024,
            connectTimeout: Duration = .seconds(15), backoff: ReconnectBackoff = ReconnectBackoff(), watchesMemberChannels: Bool = false,
            joinsWatchedChannels: Bool = false
        ) {
            self.joinsWatchedChannels = joinsWatchedChannels
            self.heartbeatInterval = heartbeatInterval
            self.serverHealthCheckInterval = serverHealthCheckInterval
            self.bufferCapacity = bufferCapacity
            self.connectTimeout = connectTimeout
            self.backoff = backoff
            self.watchesMemberChannels = watchesMemberChannels
        }
    }

    /// Where the connection stands.
    public enum State: Sendable, Equatable {
        /// Not connected yet, or reconnecting.
        case connecting
        /// Connected with this connection id.
        case connected(connectionId: String)
        /// Stopped for good.
        case stopped
    }

    struct Shared {
        var state = State.connecting
        var watched: [ChannelId] = []
        /// The channels the user was a member of when last known (with `watchesMemberChannels`).
        var memberChannels: Set<ChannelId> = []
        var socket: (any WebSocketConnection)?
        var lastEventAt: Date?
        /// Where the first connection's `/sync` starts (``catchUp(since:)``), if anywhere.
        var catchUpSince: Date?
        var firstConnectedAt: Date?
        var stateWaiters: [CheckedContinuation<Void, Never>] = []
        var connections = 0
        var stopping = false
        var lastFailure: (any Error)?
        /// What the last (re)connection did to watch the channels.
        var lastWatchReport: ChannelWatchReport?
        /// The channels the service refused to let the user join or watch, each once.
        var refusedChannels: [ChannelFailure] = []
        /// The channels the connection made the user a member of itself, whose addition event
        /// is not passed on (as when the user joined before connecting).
        var joinedItself: Set<ChannelId> = []
        /// The channels of this connection not watched (and healed) yet, whose live events wait.
        var notReady: Set<ChannelId> = []
        /// Their live events, in the order they came.
        var heldBack: [ChannelId: [Event]] = [:]
        /// The latest event passed on while some channels were not ready.
        var latestWhileHealing: Date?
    }

    /// The client whose server it connects to.
    public let client: ChatClient
    /// The user it connects as (its fields are sent as `user_details`).
    public let user: User
    /// The configuration.
    public let configuration: Configuration
    let channel: BoundedAsyncChannel<Event>
    let shared = Locked(Shared())
    let deduplicator = Locked(EventDeduplicator())
    let lastFrameAt = Atomic<Int64>(0)
    let logger: Logger
    let metrics: ConnectionMetrics

    /// A connection for `user`; it connects when `run()` is called.
    public init(client: ChatClient, user: User, configuration: Configuration = Configuration()) {
        self.client = client
        self.user = user
        self.configuration = configuration
        channel = BoundedAsyncChannel(capacity: configuration.bufferCapacity)
        var logger = client.logger
        logger[metadataKey: "user"] = .string(user.id)
        self.logger = logger
        metrics = ConnectionMetrics(client: client.metrics, user: user.id)
    }

    /// The events, each once. Ends when the connection stops.
    public var events: ChatEventStream { ChatEventStream(channel: channel) }

    /// Where the connection stands.
    public var state: State { shared.withLock { $0.state } }

    /// The current connection id, while connected.
    public var connectionId: String? {
        if case .connected(let id) = state { return id }
        return nil
    }

    /// How many times a connection was established (1 until the first reconnect).
    public var connectionCount: Int { shared.withLock { $0.connections } }

    /// The error that made the last failed attempt fail (the handshake, the first health check,
    /// watching, a broken connection), kept after later successes; nil until one fails. A
    /// connection that keeps retrying says here what it retries for (`bots doctor` shows it).
    public var lastFailure: (any Error)? { shared.withLock { $0.lastFailure } }

    /// The channels watched (again after every reconnect, unless deleted meanwhile).
    public var watchedChannels: [ChannelId] { shared.withLock { $0.watched } }

    /// Makes the first connection deliver, through `/sync`, what happened in the watched
    /// channels after `date`, as every reconnect does for the time it was away: a process that
    /// stopped at `date` catches up on what it missed. Call it before ``run()``.
    public func catchUp(since date: Date) {
        shared.withLock { $0.catchUpSince = date }
    }

    /// Watches `cid` from now on: at once when connected, and after every reconnect.
    public func watch(_ cid: ChannelId) async throws {
        let isNew = shared.withLock { shared -> Bool in
            guard !shared.watched.contains(cid) else { return false }
            shared.watched.append(cid)
            return true
        }
        if isNew { countWatched() }
        guard isNew, let connectionId else { return }
        do {
            try await watch([cid], connectionId: connectionId)
        } catch where self.connectionId != connectionId {
            // The connection ended while the request was out, and the server refused its id;
            // `cid` is watched, and the next connection watches it with the others.
            logger.debug("\(cid) will be watched after the reconnect: \(error)")
        }
    }

    /// Stops watching `cid`: on the server at once when connected, and it is not watched again
    /// after reconnects.
    public func unwatch(_ cid: ChannelId) async throws {
        forget([cid])
        if let connectionId { try await client.stopWatching(cid, connectionId: connectionId) }
    }

    /// Wakes whoever reads ``events`` with an event of type ``EventType/wakeUp`` (no channel, not
    /// counted, never deduplicated away): for a reader with work of its own waiting.
    package func nudge() async {
        await channel.send(Event(type: .wakeUp))
    }

    /// Waits until connected (again).
    public func waitUntilConnected() async {
        await withCheckedContinuation { continuation in
            let ready = shared.withLock { shared -> Bool in
                if case .connected = shared.state { return true }
                if case .stopped = shared.state { return true }
                shared.stateWaiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Connects and stays connected until cancelled or asked to shut down gracefully.
    public func run() async throws {
        defer { stop() }
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await keepConnected()
            } onGracefulShutdown: {
                self.requestStop()
            }
        } onCancel: {
            self.requestStop()
        }
    }

    /// Stops reconnecting and closes the socket, which ends the current session.
    private func requestStop() {
        let socket = shared.withLock { shared -> (any WebSocketConnection)? in
            shared.stopping = true
            return shared.socket
        }
        socket?.close(code: 1000, reason: "shutting down")
    }

    private func keepConnected() async throws {
        var failures = 0
        var generator = SystemRandomNumberGenerator()
        while !Task.isCancelled, !shared.withLock({ $0.stopping }) {
            do {
                try await session { failures = 0 }
            } catch let error as ChatClientError where error.code == .connectionRefused {
                logger.error("The chat server refused the event connection for good: \(error.message)")
                shared.withLock { $0.lastFailure = error }
                throw error
            } catch is CancellationError {
                return
            } catch {
                logger.info("Event connection lost: \(error)")
                shared.withLock { $0.lastFailure = error }
            }
            if Task.isCancelled || shared.withLock({ $0.stopping }) { return }
            setState(.connecting)
            failures += 1
            try? await Task.sleep(for: configuration.backoff.delay(afterFailures: failures, using: &generator))
        }
    }

    func setState(_ state: State) {
        let waiters = shared.withLock { shared -> [CheckedContinuation<Void, Never>] in
            shared.state = state
            if case .connecting = state { return [] }
            defer { shared.stateWaiters = [] }
            return shared.stateWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func stop() {
        shared.withLock { $0.socket }?.close(code: 1000, reason: "stopped")
        setState(.stopped)
        channel.finish()
    }
}

/// The events of an ``EventConnection``.
public struct ChatEventStream: AsyncSequence, Sendable {
    /// Events.
    public typealias Element = Event
    let channel: BoundedAsyncChannel<Event>

    /// An iterator.
    public func makeAsyncIterator() -> Iterator { Iterator(channel: channel) }

    /// Reads events one at a time.
    public struct Iterator: AsyncIteratorProtocol {
        let channel: BoundedAsyncChannel<Event>
        /// The next event, or nil when the connection stopped.
        public mutating func next() async -> Event? { await channel.next() }
        /// The next event, or nil when the connection stopped.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Event? { await channel.next() }
    }
}
