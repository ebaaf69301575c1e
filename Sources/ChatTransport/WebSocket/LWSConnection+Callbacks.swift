import CLibWebSockets
import ChatLocking
import Foundation

extension LWSConnection {
    /// Handles one libwebsockets callback on the service thread; a non-zero result closes the socket.
    func handle(wsi: OpaquePointer, reason: lws_callback_reasons, input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        if self.wsi == nil, reason != LWS_CALLBACK_WSI_DESTROY { self.wsi = wsi }
        switch reason {
        case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
            return appendHeaders(wsi: wsi, input: input, length: length)
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            // A handshake that finishes after the caller gave up (timeout, cancellation) is closed.
            if shared.withLock({ $0.ended || $0.connectContinuation == nil }) { return -1 }
            connectFinished(nil)
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            let detail = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "unknown error"
            let lowered = detail.lowercased()
            // Read while the handshake's headers are still held: the status an HTTP server (or a
            // proxy that does not pass WebSockets on) answered instead of switching protocols.
            let status = lws_http_client_http_response(wsi)
            let code: TransportError.Code
            let message: String
            if lowered.contains("cert") || lowered.contains("ssl") || lowered.contains("tls") {
                code = .tlsFailure
                message = "the TLS certificate of \(request.url.host ?? "") does not verify, so nothing was sent: \(detail)"
            } else if status != 0, status != 101 {
                code = .webSocketClosed
                message =
                    "cannot open a WebSocket to \(request.url.host ?? ""): it answered HTTP \(status) instead of switching to the "
                    + "WebSocket protocol; check the URL, and that a proxy in between passes WebSockets on (\(detail))"
            } else {
                code = .connectionFailed
                message = "cannot open a WebSocket to \(request.url.host ?? ""): \(detail)"
            }
            connectFinished(TransportError(code: code, message: message))
            ended(code: 1006, reason: message)
        case LWS_CALLBACK_CLIENT_RECEIVE:
            return receive(wsi: wsi, input: input, length: length)
        case LWS_CALLBACK_CLIENT_RECEIVE_PONG:
            queue.push(.pong)
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            return write(wsi: wsi)
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            if let input, length >= 2 {
                let bytes = input.assumingMemoryBound(to: UInt8.self)
                let code = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
                let text = length > 2 ? String(decoding: UnsafeRawBufferPointer(start: bytes + 2, count: length - 2), as: UTF8.self) : ""
                peerClose = (code, text)
            }
        case LWS_CALLBACK_CLIENT_CLOSED, LWS_CALLBACK_CLOSED:
            finishClosed()
        case LWS_CALLBACK_WSI_DESTROY:
            finishClosed()
            self.wsi = nil
            engine.forget(self)
        default:
            break
        }
        return 0
    }

    private func finishClosed() {
        if tooLarge {
            ended(code: 1009, reason: "a message was larger than \(request.maximumMessageSize) bytes")
        } else if let peerClose {
            ended(code: peerClose.code, reason: peerClose.reason)
        } else if let request = shared.withLock({ $0.closeRequest }) {
            ended(code: request.code, reason: request.reason)
        } else {
            ended(code: 1006, reason: "the connection closed without a close frame")
        }
    }

    private func appendHeaders(wsi: OpaquePointer, input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        guard let input else { return 0 }
        let cursor = input.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        guard let start = cursor.pointee else { return 0 }
        let end = start + length
        for header in request.headers {
            let name = header.name.hasSuffix(":") ? header.name : header.name + ":"
            let added = name.withCString { namePointer in
                header.value.withCString { valuePointer in
                    lws_add_http_header_by_name(
                        wsi, UnsafeRawPointer(namePointer).assumingMemoryBound(to: UInt8.self),
                        UnsafeRawPointer(valuePointer).assumingMemoryBound(to: UInt8.self), Int32(header.value.utf8.count), cursor, end)
                }
            }
            if added != 0 { return -1 }
        }
        return 0
    }

    private func receive(wsi: OpaquePointer, input: UnsafeMutableRawPointer?, length: Int) -> Int32 {
        // After an oversized message the rest of the socket's data is discarded until the close
        // goes out. Returning -1 here instead (closing from inside the receive callback, in the
        // middle of a frame) crashes libwebsockets 4.1.
        if tooLarge { return 0 }
        if lws_is_first_fragment(wsi) != 0 {
            partial.removeAll(keepingCapacity: true)
            partialIsBinary = lws_frame_is_binary(wsi) != 0
        }
        guard partial.count + length <= request.maximumMessageSize else {
            tooLarge = true
            partial = Data()
            shared.withLock { $0.closeRequest = $0.closeRequest ?? (1009, "message too big") }
            lws_callback_on_writable(wsi)
            return 0
        }
        if let input, length > 0 { partial.append(input.assumingMemoryBound(to: UInt8.self), count: length) }
        guard lws_is_final_fragment(wsi) != 0, lws_remaining_packet_payload(wsi) == 0 else { return 0 }
        let message: WebSocketInbound = partialIsBinary ? .binary(partial) : .text(partial)
        partial = Data()
        if queue.push(message) {
            // The consumer is behind: stop reading from the socket until it catches up.
            lws_rx_flow_control(wsi, 0)
        }
        return 0
    }

    private func write(wsi: OpaquePointer) -> Int32 {
        let next = nextOutgoing()
        if let close = next.close {
            var reason = Array(close.reason.utf8.prefix(120))
            lws_close_reason(wsi, lws_close_status(rawValue: UInt32(close.code)), &reason, reason.count)
            return -1
        }
        guard let frame = next.frame else { return 0 }
        let headroom = cbk_lws_pre()
        let payload: Data
        let protocolType: lws_write_protocol
        switch frame {
        case .text(let data):
            payload = data
            protocolType = LWS_WRITE_TEXT
        case .ping:
            payload = Data()
            protocolType = LWS_WRITE_PING
        }
        var buffer = [UInt8](repeating: 0, count: headroom + payload.count)
        buffer.replaceSubrange(headroom..<buffer.count, with: payload)
        let written = buffer.withUnsafeMutableBufferPointer { pointer in
            lws_write(wsi, pointer.baseAddress! + headroom, payload.count, protocolType)
        }
        if written < payload.count { return -1 }
        if next.more { lws_callback_on_writable(wsi) }
        return 0
    }
}
