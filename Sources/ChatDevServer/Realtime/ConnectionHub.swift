import ChatModels
import Foundation

/// Every open WebSocket connection, which channels each one watches, and the fan-out of events:
/// channel events to the connections watching the channel, `notification.*` variants to
/// members' connections that are not watching it (protocol.md §4.7).
actor ConnectionHub {
    /// What a connection's writer sends.
    enum Outbound: Sendable {
        case text(String)
        case close(code: UInt16, reason: String)
    }

    struct Connection {
        let userId: String
        let continuation: AsyncStream<Outbound>.Continuation
        var watching: Set<ChannelId>
    }

    private var connections: [String: Connection] = [:]
    /// Users whose connections get no frames at all (to test clients against a server that hangs).
    private var silenced: Set<String> = []
    private var refused: Set<String> = []
    private let maximumQueued: Int

    init(maximumQueued: Int) {
        self.maximumQueued = maximumQueued
    }

    /// Registers a connection; its writer drains the returned stream. The buffer is bounded: a
    /// client too slow to keep up is disconnected (it reconnects and heals through `/sync`)
    /// instead of growing the server's memory.
    func register(id: String, userId: String) -> AsyncStream<Outbound> {
        let (stream, continuation) = AsyncStream<Outbound>.makeStream(bufferingPolicy: .bufferingOldest(maximumQueued))
        connections[id] = Connection(userId: userId, continuation: continuation, watching: [])
        return stream
    }

    func unregister(id: String) {
        connections.removeValue(forKey: id)?.continuation.finish()
    }

    /// Starts delivering `cid`'s events to connection `id`; false if there is no such connection
    /// or it belongs to someone other than `userId`.
    func watch(connectionId id: String, cid: ChannelId, userId: String?) -> Bool {
        guard isConnection(id, of: userId) else { return false }
        connections[id]?.watching.insert(cid)
        return true
    }

    /// Delivers the events of every one of `cids` to connection `id` (a page of channels
    /// watched at once); false if there is no such connection or it belongs to someone else.
    func watch(connectionId id: String, cids: [ChannelId], userId: String?) -> Bool {
        guard isConnection(id, of: userId) else { return false }
        connections[id]?.watching.formUnion(cids)
        return true
    }

    /// Stops delivering `cid`'s events to connection `id`; false if there is no such connection
    /// or it belongs to someone other than `userId`.
    func stopWatching(connectionId id: String, cid: ChannelId, userId: String?) -> Bool {
        guard isConnection(id, of: userId) else { return false }
        connections[id]?.watching.remove(cid)
        return true
    }

    /// Whether connection `id` is open and belongs to `userId` (any user's, for the server: nil).
    private func isConnection(_ id: String, of userId: String?) -> Bool {
        guard let owner = connections[id]?.userId else { return false }
        return userId == nil || owner == userId
    }

    /// Stops every connection of `userIds` from watching `cid`.
    func stopWatching(_ cid: ChannelId, byUsers userIds: Set<String>) {
        for (id, connection) in connections where userIds.contains(connection.userId) { connections[id]?.watching.remove(cid) }
    }

    /// The users whose connections watch `cid`.
    func watchingUserIds(_ cid: ChannelId) -> Set<String> {
        Set(connections.values.filter { $0.watching.contains(cid) }.map(\.userId))
    }

    func userId(ofConnection id: String) -> String? { connections[id]?.userId }

    var onlineUserIds: Set<String> { Set(connections.values.map(\.userId)) }

    func watcherCount(_ cid: ChannelId) -> Int { connections.values.filter { $0.watching.contains(cid) }.count }

    /// ``watcherCount(_:)`` of each of `cids`, in one pass over the connections.
    func watcherCounts(_ cids: [ChannelId]) -> [ChannelId: Int] {
        var counts = Dictionary(uniqueKeysWithValues: Set(cids).map { ($0, 0) })
        for connection in connections.values {
            for cid in cids where connection.watching.contains(cid) { counts[cid, default: 0] += 1 }
        }
        return counts
    }

    /// Sends `text` (an event, already written: the app's webhook posts the same text) to the
    /// watchers of `cid` and `notification` to the connections of `notify` that are not watching it.
    func publish(_ text: String, cid: ChannelId, notification: JSONObject? = nil, notify: Set<String> = []) {
        let notificationText = notification.map { JSONWriter.string(.object($0)) }
        for (id, connection) in connections {
            if connection.watching.contains(cid) {
                send(.text(text), to: id)
            } else if let notificationText, notify.contains(connection.userId) {
                send(.text(notificationText), to: id)
            }
        }
    }

    /// Sends `event` to every connection of the given users.
    func publish(_ event: JSONObject, toUsers userIds: Set<String>) {
        let text = JSONWriter.string(.object(event))
        for (id, connection) in connections where userIds.contains(connection.userId) {
            send(.text(text), to: id)
        }
    }

    /// Sends a frame to one connection.
    func send(_ frame: Outbound, to id: String) {
        guard let connection = connections[id], !silenced.contains(connection.userId) else { return }
        if case .dropped = connection.continuation.yield(frame) {
            connection.continuation.yield(.close(code: 1013, reason: "client too slow; reconnect and sync"))
            connection.continuation.finish()
            connections.removeValue(forKey: id)
        }
    }

    /// Stops (or resumes) sending anything to `userId`'s connections, health checks included.
    func setSilenced(_ userId: String, _ isSilenced: Bool) {
        if isSilenced { silenced.insert(userId) } else { silenced.remove(userId) }
    }

    /// Turns away (or lets in again) `userId`'s new connections.
    func setRefused(_ userId: String, _ isRefused: Bool) {
        if isRefused { refused.insert(userId) } else { refused.remove(userId) }
    }

    /// Whether `userId`'s new connections are turned away.
    func isRefused(_ userId: String) -> Bool { refused.contains(userId) }

    /// Sends a raw text frame to every connection of `userId` (for tests of bad frames).
    func sendRaw(_ text: String, toUser userId: String) -> Int {
        let ids = connections.filter { $0.value.userId == userId }.map(\.key)
        for id in ids { send(.text(text), to: id) }
        return ids.count
    }

    /// Closes every connection of `userId` (or all, when nil) with `code`, as a server restart would.
    func disconnect(userId: String?, code: UInt16 = 1001, reason: String = "server going away") -> Int {
        let ids = connections.filter { userId == nil || $0.value.userId == userId }.map(\.key)
        for id in ids {
            connections[id]?.continuation.yield(.close(code: code, reason: reason))
            connections[id]?.continuation.finish()
            connections.removeValue(forKey: id)
        }
        return ids.count
    }
}
