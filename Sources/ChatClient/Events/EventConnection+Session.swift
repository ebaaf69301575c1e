import ChatLocking
import ChatModels
import ChatTransport
import Foundation
import Logging
import Synchronization

extension EventConnection {
    /// One connection from handshake to close: first health check, watching, gap healing,
    /// then events until the socket closes or goes quiet.
    func session(onConnected: () -> Void) async throws {
        let socket = try await client.webSocket.connect(
            WebSocketRequest(
                url: try connectURL(), headers: [("X-Stream-Client", client.configuration.clientIdentifier)], inboundCapacity: 256,
                connectTimeout: configuration.connectTimeout))
        let stopping = shared.withLock { shared -> Bool in
            shared.socket = socket
            return shared.stopping
        }
        // A stop that came in while connecting still closes this socket.
        if stopping { socket.close(code: 1000, reason: "shutting down") }
        defer {
            socket.close(code: 1000, reason: "reconnecting")
            shared.withLock { $0.socket = nil }
        }
        let connectionId = try await firstHealthCheck(on: socket)
        // Runs before the socket closes (defers run last first): from the moment the server can
        // drop this id, `watch` no longer sends it.
        defer { shared.withLock { if case .connected(connectionId) = $0.state { $0.state = .connecting } } }
        markFrame()
        let (isReconnect, catchesUp) = shared.withLock { shared -> (Bool, Bool) in
            shared.connections += 1
            if shared.firstConnectedAt == nil { shared.firstConnectedAt = Date() }
            return (shared.connections > 1, shared.catchUpSince != nil)
        }
        metrics.connected()
        defer { metrics.disconnected() }
        onConnected()
        // Events are read from the start; each channel's wait until it is watched (and its gap
        // healed: from the last event seen, or where catch-up said), then come in order.
        let healsFrom = isReconnect || catchesUp ? shared.withLock { $0.lastEventAt ?? $0.catchUpSince ?? $0.firstConnectedAt } ?? Date() : nil
        holdBack(watchedChannels)
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { [self] in
                try await pump(socket: socket)
                return true
            }
            group.addTask { [self] in
                do {
                    try await watchEverything(connectionId: connectionId, isReconnect: isReconnect, healingFrom: healsFrom)
                } catch {
                    // The reader ends when the socket does.
                    socket.close(code: 1000, reason: "reconnecting")
                    throw error
                }
                return false
            }
            while let readerEnded = try await group.next() {
                if readerEnded {
                    group.cancelAll()
                    break
                }
            }
        }
    }

    /// Watches every channel on the new connection `connectionId`, healing gaps from
    /// `healingFrom` if given, then says the connection is up.
    private func watchEverything(connectionId: String, isReconnect: Bool, healingFrom: Date?) async throws {
        let started = ContinuousClock.now
        var report = ChannelWatchReport(isReconnect: isReconnect)
        try await watchAll(connectionId: connectionId, isReconnect: isReconnect, healingFrom: healingFrom, report: &report)
        // Channels forgotten or refused meanwhile: nothing of theirs waits any longer.
        await release(shared.withLock { $0.notReady })
        report.duration = ContinuousClock.now - started
        shared.withLock { [report] in $0.lastWatchReport = report }
        setState(.connected(connectionId: connectionId))
        // A first connection's is for whoever started it to say (a bot's ready line carries it).
        logger.log(level: isReconnect ? .info : .debug, "Event connection \(isReconnect ? "re-established" : "established"): \(report)")
    }

    /// The `/connect` URL: credentials and the user in the query, as Stream's JS SDK sends them.
    func connectURL() throws -> URL {
        guard var components = URLComponents(url: client.configuration.baseURL, resolvingAgainstBaseURL: false) else {
            throw ChatClientError(code: .misconfigured, message: "\(client.configuration.baseURL) is not a URL")
        }
        components.scheme = components.scheme == "https" ? "wss" : "ws"
        components.path = (components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path) + "/connect"
        let details: JSONObject = ["user_id": .string(user.id), "user_details": user.json, "server_determines_connection_id": true]
        components.queryItems = [
            URLQueryItem(name: "json", value: JSONWriter.string(.object(details))),
            URLQueryItem(name: "api_key", value: client.configuration.apiKey),
            URLQueryItem(name: "authorization", value: try client.connectionToken(for: user.id)),
            URLQueryItem(name: "stream-auth-type", value: "jwt"),
        ]
        // Some characters URLComponents leaves alone have a meaning in query strings.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.url else { throw ChatClientError(code: .misconfigured, message: "cannot build the /connect URL") }
        return url
    }

    /// The connection id from the first health check, which must come within `connectTimeout`.
    private func firstHealthCheck(on socket: any WebSocketConnection) async throws -> String {
        let timeout = configuration.connectTimeout
        return try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask { [self] in
                var inbound = socket.inbound.makeAsyncIterator()
                return try await handshake(&inbound)
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let connectionId = try await group.next() ?? nil else {
                throw ChatClientError(code: .transport, message: "no health check within \(timeout) of connecting")
            }
            return connectionId
        }
    }

    /// Reads the first frame: a health check with the connection id, or a connection error.
    private func handshake(_ inbound: inout WebSocketInboundStream.Iterator) async throws -> String {
        while let element = await inbound.next() {
            switch element {
            case .text(let frame):
                let event: Event
                do {
                    event = try Event.decode(frame: frame)
                } catch {
                    logger.warning("The first frame is not an event and is skipped: \(error)")
                    continue
                }
                if event.type == .connectionError {
                    let code = event.error?.code ?? 5
                    let message = event.error?.message ?? "connection refused"
                    // 40 (token expired) is worth retrying with a fresh token; the others will not get better.
                    if code == 40 {
                        throw ChatClientError(code: .transport, message: "token expired: \(message)", streamCode: code, httpStatus: 401)
                    }
                    throw ChatClientError(code: .connectionRefused, message: message, streamCode: code, httpStatus: event.error?.statusCode)
                }
                guard event.type == .healthCheck, let connectionId = event.connectionId, !connectionId.isEmpty else {
                    logger.warning("Expected a health.check first, got \(event.type)")
                    continue
                }
                return connectionId
            case .closed(let code, let reason):
                throw ChatClientError(code: .transport, message: "the server closed the connection (\(code)): \(reason)")
            default:
                continue
            }
        }
        throw ChatClientError(code: .transport, message: "the connection ended before its first health check")
    }

    /// Watches channels on this connection one call each (getting or creating them).
    func watch(_ cids: [ChannelId], connectionId: String) async throws {
        for cid in cids {
            try await client.queryChannel(cid, members: [user.id], createdBy: user.id, watch: connectionId, messageLimit: 0)
        }
    }

    /// Reads frames until the socket closes or health checks stop; delivers events.
    private func pump(socket: any WebSocketConnection) async throws {
        let deadAfter = configuration.serverHealthCheckInterval * 2 + .seconds(1)
        let heartbeat = configuration.heartbeatInterval
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                // The inbound queue has one reader at a time; this picks up after the handshake.
                var inbound = socket.inbound.makeAsyncIterator()
                while let element = await inbound.next() {
                    markFrame()
                    switch element {
                    case .text(let frame):
                        await handleFrame(frame)
                    case .closed(let code, let reason):
                        logger.debug("Socket closed", metadata: ["code": "\(code)", "reason": "\(reason)"])
                        return
                    default:
                        continue
                    }
                }
            }
            group.addTask { [self] in
                // Heartbeats, and the dead-connection check: no frame for two health-check intervals.
                var sinceHeartbeat = Duration.zero
                let tick = min(heartbeat, .milliseconds(250))
                while !Task.isCancelled {
                    try await Task.sleep(for: tick)
                    sinceHeartbeat += tick
                    if sinceHeartbeat >= heartbeat {
                        sinceHeartbeat = .zero
                        try? socket.send(text: #"[{"type":"health.check","client_id":"\#(user.id)"}]"#)
                    }
                    if silence() > deadAfter {
                        logger.info("No health check for \(silence()); the connection is dead")
                        socket.close(code: 4000, reason: "no health check")
                        return
                    }
                }
            }
            try await group.next()
            group.cancelAll()
        }
    }

    private func handleFrame(_ frame: Data) async {
        let event: Event
        do {
            event = try Event.decode(frame: frame)
        } catch {
            logger.warning(
                "A frame that is not a valid event was skipped: \(error)", metadata: ["frame": "\(String(decoding: frame.prefix(120), as: UTF8.self))"])
            metrics.invalidFrame()
            return
        }
        switch event.type {
        case .healthCheck:
            return
        case .connectionError:
            logger.warning("connection.error: \(event.error?.message ?? "")")
        default:
            if isHeldBack(event) { return }
            await deliver(event)
        }
    }

    /// Passes an event on once; waits while the reader is behind.
    func deliver(_ event: Event) async {
        guard deduplicator.withLock({ $0.admit(event) }) else {
            metrics.duplicateDropped()
            return
        }
        if isOwnJoining(event) { return }
        // Not watched again after a reconnect: a deleted channel, which watching would create
        // anew, and one this user was removed from, whose events watching with server
        // credentials would keep coming.
        if let cid = event.cid, event.type == .channelDeleted || event.type == .notificationChannelDeleted || event.isRemoval(of: user.id) {
            forget([cid])
        }
        if configuration.watchesMemberChannels { await followMembership(event) }
        if event.cid != nil, let createdAt = event.createdAt { noteDelivered(at: createdAt) }
        metrics.delivered(event.type)
        await channel.send(event)
    }

    private func markFrame() {
        lastFrameAt.store(Int64(DispatchTime.now().uptimeNanoseconds), ordering: .relaxed)
    }

    private func silence() -> Duration {
        .nanoseconds(Int64(DispatchTime.now().uptimeNanoseconds) - lastFrameAt.load(ordering: .relaxed))
    }
}
