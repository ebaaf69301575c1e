import ChatLocking
import ChatModels
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import Synchronization

/// `GET /connect`: the event connection. Credentials come from the query (`api_key`,
/// `authorization`, `stream-auth-type`, `json`) or the upgrade headers. The first frame is a
/// `health.check` with the connection id and `me`; a bad token gets one `connection.error` and a
/// close with code 1000.
struct WebSocketEndpoint: Sendable {
    let state: DevServerState

    /// Decides on an upgrade; every `/connect` request is upgraded so errors can be reported in-band.
    func shouldUpgrade(_ head: HTTPRequest, channel: any NIOCore.Channel)
        -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>>
    {
        let uri = URI(head.path ?? "/")
        guard PathNormalizer.collapseSlashes(uri.path) == "/connect" else { return .dontUpgrade }
        return .upgrade([:]) { inbound, outbound, context in
            await serve(head: head, uri: uri, channel: channel, inbound: inbound, outbound: outbound, logger: context.logger)
        }
    }

    private func serve(
        head: HTTPRequest, uri: URI, channel: any NIOCore.Channel, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter,
        logger: Logger
    ) async {
        let query = FormQuery(uri)
        let connectRequest = query["json"].flatMap { try? JSONParser().parse($0).objectValue } ?? [:]
        let now = state.clock.now()
        let userId: String
        do {
            let apiKey = query["api_key"]
            let token = query["authorization"] ?? head.headerFields[.authorization]
            let authType = query["stream-auth-type"] ?? head.headerFields[HTTPField.Name("stream-auth-type")!]
            let principal = try await state.verifier.authenticate(apiKey: apiKey, token: token, authType: authType)
            try state.requireEnabled(principal)
            guard case .user(let tokenUser) = principal else {
                throw APIError.unauthorized(code: 5, "JWTAuth error: a WebSocket connection needs a user token (with user_id)")
            }
            if let requested = connectRequest["user_id"]?.stringValue, requested != tokenUser {
                throw APIError.unauthorized(code: 5, "JWTAuth error: the token is for \(tokenUser) but json.user_id is \(requested)")
            }
            userId = tokenUser
        } catch {
            let failure = (error as? APIError) ?? APIError.unauthorized(code: 5, "\(error)")
            let event: JSONObject = [
                "type": "connection.error", "connection_id": "", "created_at": .string(RFC3339.string(from: now)),
                "error": .object(failure.payload(duration: "").json.objectValue ?? [:]),
            ]
            try? await outbound.write(.text(JSONWriter.string(.object(event))))
            try? await outbound.close(.normalClosure, reason: failure.message)
            return
        }
        if await state.hub.isRefused(userId) {
            try? await outbound.close(.init(codeNumber: 1013), reason: "connections of \(userId) are turned away for now")
            return
        }
        let details = connectRequest["user_details"]?.objectValue ?? [:]
        let renderer = await state.renderer(baseURL: head.authority.map { "http://\($0)" } ?? state.boundAddress.withLock { $0 } ?? "http://127.0.0.1")
        let me: JSONObject
        do {
            me = try await state.store.write { db in
                let user = details.isEmpty
                    ? try UsersTable.ensure(db, userId, now: now) : try UsersTable.upsert(db, details, id: userId, now: now, replace: false)
                try UsersTable.touch(db, userId, now: now)
                return try renderer.ownUser(db, user)
            }
        } catch {
            logger.error("Could not store user \(userId): \(error)")
            try? await outbound.close(.unexpectedServerError, reason: "internal error")
            return
        }
        let connectionId = UUID().uuidString.lowercased()
        let stream = await state.hub.register(id: connectionId, userId: userId)
        let healthCheck = HealthCheck(connectionId: connectionId, clock: state.clock)
        await state.hub.send(.text(healthCheck.frame(me: me)), to: connectionId)
        let hub = state.hub
        // The observer runs on the channel's event loop; a task hands each ping over to the hub actor.
        let onPing: @Sendable () -> Void = { Task { await hub.send(.text(healthCheck.frame()), to: connectionId) } }
        try? await channel.eventLoop.submit {
            let decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(PingObserver(onPing: onPing), position: .after(decoder))
        }.get()

        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // Writes whatever the hub queues; a close request ends the connection.
                for await frame in stream {
                    switch frame {
                    case .text(let text):
                        do { try await outbound.write(.text(text)) } catch { return }
                    case .close(let code, let reason):
                        try? await outbound.close(.init(codeNumber: Int(code)), reason: reason)
                        return
                    }
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: state.configuration.healthCheckInterval)
                    if Task.isCancelled { return }
                    await hub.send(.text(healthCheck.frame()), to: connectionId)
                }
            }
            group.addTask {
                // Client frames: a health check (an object, or an array of them, as stream-chat-js sends) is
                // answered; anything else is ignored, as on the hosted service.
                do {
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case .text(let text) = message, WebSocketEndpoint.isHealthCheck(text) else { continue }
                        await hub.send(.text(healthCheck.frame()), to: connectionId)
                    }
                } catch {
                    logger.debug("WebSocket \(connectionId) read failed: \(error)")
                }
            }
            // The first task to finish (socket closed, or the server closing it) ends the connection.
            await group.next()
            group.cancelAll()
        }
        await state.hub.unregister(id: connectionId)
    }

    static func isHealthCheck(_ text: String) -> Bool {
        guard let json = try? JSONParser().parse(text) else { return false }
        if case .array(let elements) = json { return elements.contains { $0["type"]?.stringValue == "health.check" } }
        return json["type"]?.stringValue == "health.check"
    }
}

/// Builds `health.check` frames for one connection.
struct HealthCheck: Sendable {
    let connectionId: String
    let clock: MonotonicClock

    func frame(me: JSONObject? = nil) -> String {
        var event: JSONObject = [
            "type": "health.check", "cid": "*", "connection_id": .string(connectionId),
            "created_at": .string(RFC3339.string(from: clock.now())),
        ]
        if let me { event["me"] = .object(me) }
        return JSONWriter.string(.object(event))
    }
}
