import CLibWebSockets
import ChatLocking
import Foundation

/// One WebSocket on the libwebsockets service thread.
///
/// Thread use: `wsi`, `partial` and the callbacks belong to the service thread. Other threads
/// reach the connection only through `outgoing` and the flags in `shared` (a lock) and by
/// asking the service thread for work with `lws_cancel_service`.
final class LWSConnection: WebSocketConnection, @unchecked Sendable {
    enum Outgoing {
        case text(Data)
        case ping
    }

    struct Shared {
        var outgoing: [Outgoing] = []
        var closeRequest: (code: UInt16, reason: String)?
        var open = false
        var ended = false
        var connectContinuation: CheckedContinuation<Void, any Error>?
    }

    let request: WebSocketRequest
    let queue: BoundedInboundQueue
    let shared = Locked(Shared())
    unowned let engine: LWSEngine

    // Service thread only.
    var wsi: OpaquePointer?
    var partial = Data()
    var partialIsBinary = false
    var peerClose: (code: UInt16, reason: String)?
    var tooLarge = false
    let cStrings: [UnsafeMutablePointer<CChar>]

    init(request: WebSocketRequest, engine: LWSEngine) {
        self.request = request
        self.engine = engine
        let url = request.url
        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?" + query }
        let port = url.port ?? (url.scheme == "wss" ? 443 : 80)
        let hostHeader = url.port.map { "\(url.host ?? ""):\($0)" } ?? (url.host ?? "")
        cStrings = [strdup(url.host ?? ""), strdup(path), strdup(hostHeader), strdup("\(url.scheme == "wss" ? "https" : "http")://\(hostHeader)")]
        self.port = Int32(port)
        queue = BoundedInboundQueue(capacity: request.inboundCapacity)
        queue.onDrained { [weak self] in
            guard let self else { return }
            self.engine.request(.resumeReading(self))
        }
    }

    let port: Int32
    var address: UnsafeMutablePointer<CChar> { cStrings[0] }
    var path: UnsafeMutablePointer<CChar> { cStrings[1] }
    var hostHeader: UnsafeMutablePointer<CChar> { cStrings[2] }
    var origin: UnsafeMutablePointer<CChar> { cStrings[3] }
    var isSecure: Bool { request.url.scheme == "wss" }

    deinit {
        for string in cStrings { free(string) }
    }

    var inbound: WebSocketInboundStream { WebSocketInboundStream(queue: queue) }

    func send(text: String) throws {
        try enqueue(.text(Data(text.utf8)))
    }

    func ping() throws {
        try enqueue(.ping)
    }

    private func enqueue(_ frame: Outgoing) throws {
        let accepted = shared.withLock { shared -> Bool in
            guard shared.open, !shared.ended, shared.closeRequest == nil else { return false }
            shared.outgoing.append(frame)
            return true
        }
        guard accepted else { throw TransportError(code: .webSocketClosed, message: "the WebSocket is closed") }
        engine.request(.writable(self))
    }

    func close(code: UInt16, reason: String) {
        let first = shared.withLock { shared -> Bool in
            guard !shared.ended, shared.closeRequest == nil else { return false }
            shared.closeRequest = (code, reason)
            return true
        }
        if first { engine.request(.writable(self)) }
    }

    // MARK: Service thread

    /// Called when the handshake completed or failed.
    func connectFinished(_ error: TransportError?) {
        let continuation = shared.withLock { shared -> CheckedContinuation<Void, any Error>? in
            if error == nil { shared.open = true }
            defer { shared.connectContinuation = nil }
            return shared.connectContinuation
        }
        if let error { continuation?.resume(throwing: error) } else { continuation?.resume() }
    }

    /// Called once when the socket is gone.
    func ended(code: UInt16, reason: String) {
        let alreadyEnded = shared.withLock { shared -> Bool in
            defer { shared.ended = true }
            return shared.ended
        }
        guard !alreadyEnded else { return }
        connectFinished(TransportError(code: .connectionFailed, message: reason))
        queue.push(.closed(code: code, reason: reason))
    }

    /// Takes the next frame to write, or the close request once nothing else is queued.
    func nextOutgoing() -> (frame: Outgoing?, close: (code: UInt16, reason: String)?, more: Bool) {
        shared.withLock { shared in
            if let close = shared.closeRequest { return (nil, close, false) }
            guard !shared.outgoing.isEmpty else { return (nil, nil, false) }
            let frame = shared.outgoing.removeFirst()
            return (frame, nil, !shared.outgoing.isEmpty)
        }
    }
}
