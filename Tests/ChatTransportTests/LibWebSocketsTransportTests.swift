import ChatDevServer
@testable import ChatTransport
import Foundation
import Testing

@Suite("WebSocket on libwebsockets")
struct LibWebSocketsTransportTests {
    static func connectURL(_ baseURL: URL, user: String) -> URL {
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)!
        components.scheme = "ws"
        components.path = "/connect"
        components.queryItems = [
            URLQueryItem(name: "api_key", value: "dev-key"),
            URLQueryItem(name: "json", value: #"{"user_id":"\#(user)","server_determines_connection_id":true}"#),
        ]
        return components.url!
    }

    /// The next text message, skipping pongs.
    static func nextText(_ iterator: inout WebSocketInboundStream.Iterator) async -> String? {
        while let element = await iterator.next() {
            switch element {
            case .text(let bytes): return String(decoding: bytes, as: UTF8.self)
            case .closed: return nil
            default: continue
            }
        }
        return nil
    }

    @Test("connects with headers and query, receives text, answers pings, closes with a code")
    func basics() async throws {
        try await withDevServer { server, baseURL in
            let transport = LibWebSocketsTransport()
            defer { transport.shutdown() }
            let connection = try await transport.connect(
                WebSocketRequest(url: Self.connectURL(baseURL, user: "u1"), headers: authHeaders(devToken("u1"))))
            var inbound = connection.inbound.makeAsyncIterator()
            let first = try #require(await Self.nextText(&inbound))
            #expect(first.contains(#""type":"health.check""#) && first.contains(#""connection_id""#))
            try connection.ping()
            var sawPong = false
            var sawHealthCheck = false
            while !(sawPong && sawHealthCheck), let element = await inbound.next() {
                if element == .pong { sawPong = true }
                if let text = element.text, text.contains("health.check") { sawHealthCheck = true }
            }
            #expect(sawPong && sawHealthCheck, "a ping gets a pong frame and a health.check event")
            try connection.send(text: #"[{"type":"health.check"}]"#)
            #expect(await Self.nextText(&inbound)?.contains("health.check") == true)
            await server.sendRawFrame("definitely { not json", toUser: "u1")
            #expect(await Self.nextText(&inbound) == "definitely { not json", "the transport hands over any text frame")
            connection.close(code: 1000, reason: "bye")
            var last: WebSocketInbound?
            while let element = await inbound.next() { last = element }
            guard case .closed(let code, _)? = last else {
                Issue.record("the stream must end with .closed, got \(String(describing: last))")
                return
            }
            #expect(code == 1000)
            #expect(throws: TransportError.self) { try connection.send(text: "after close") }
        }
    }

    @Test("the server closing the socket ends the stream with its close code")
    func serverClose() async throws {
        try await withDevServer { server, baseURL in
            let transport = LibWebSocketsTransport()
            defer { transport.shutdown() }
            let connection = try await transport.connect(
                WebSocketRequest(url: Self.connectURL(baseURL, user: "u2"), headers: authHeaders(devToken("u2"))))
            var inbound = connection.inbound.makeAsyncIterator()
            _ = await Self.nextText(&inbound)
            #expect(await server.dropConnections(ofUser: "u2") == 1)
            var last: WebSocketInbound?
            while let element = await inbound.next() { last = element }
            #expect(last == .closed(code: 1001, reason: "server going away"))
        }
    }

    @Test("a 10 MB frame closes the connection with 1009 instead of being buffered")
    func oversizedFrame() async throws {
        try await withDevServer { server, baseURL in
            let transport = LibWebSocketsTransport()
            defer { transport.shutdown() }
            let connection = try await transport.connect(
                WebSocketRequest(url: Self.connectURL(baseURL, user: "u3"), headers: authHeaders(devToken("u3"))))
            var inbound = connection.inbound.makeAsyncIterator()
            _ = await Self.nextText(&inbound)
            await server.sendRawFrame(String(repeating: "x", count: 10 * 1024 * 1024), toUser: "u3")
            var last: WebSocketInbound?
            while let element = await inbound.next() {
                if case .text(let bytes) = element { #expect(bytes.count < 1024, "no oversized message is delivered") }
                last = element
            }
            guard case .closed(let code, let reason)? = last else {
                Issue.record("expected .closed")
                return
            }
            #expect(code == 1009 && reason.contains("larger than"))
        }
    }

    @Test("a slow reader gets backpressure: the buffer never grows past its capacity, nothing is lost")
    func backpressure() async throws {
        try await withDevServer { server, baseURL in
            let transport = LibWebSocketsTransport()
            defer { transport.shutdown() }
            let connection = try await transport.connect(
                WebSocketRequest(url: Self.connectURL(baseURL, user: "u4"), headers: authHeaders(devToken("u4")), inboundCapacity: 8))
            let queue = try #require((connection as? LWSConnection)?.queue)
            var inbound = connection.inbound.makeAsyncIterator()
            _ = await Self.nextText(&inbound)
            for index in 0..<300 {
                await server.sendRawFrame(#"{"type":"custom","n":\#(index)}"#, toUser: "u4")
            }
            var received: [Int] = []
            var largest = 0
            while received.count < 300 {
                largest = max(largest, queue.count)
                try await Task.sleep(for: .milliseconds(1))
                guard let text = await Self.nextText(&inbound) else { break }
                if let range = text.range(of: #""n":"#) {
                    received.append(Int(text[range.upperBound...].dropLast()) ?? -1)
                }
            }
            #expect(received == Array(0..<300), "every message arrives, in order")
            #expect(largest <= 8, "at most the capacity is buffered (largest seen: \(largest))")
            connection.close(code: 1000, reason: "done")
        }
    }

    @Test("nothing listening, a bad scheme, and an untrusted TLS certificate are clear errors")
    func failures() async throws {
        let transport = LibWebSocketsTransport()
        defer { transport.shutdown() }
        await #expect {
            _ = try await transport.connect(WebSocketRequest(url: URL(string: "ws://127.0.0.1:9/connect")!))
        } throws: { ($0 as? TransportError)?.code == .connectionFailed }
        await #expect {
            _ = try await transport.connect(WebSocketRequest(url: URL(string: "http://127.0.0.1:9/connect")!))
        } throws: { ($0 as? TransportError)?.code == .invalidRequest }
        let tls = try TLSTestServer()
        defer { tls.stop() }
        let port = tls.url.port!
        await #expect {
            _ = try await transport.connect(WebSocketRequest(url: URL(string: "wss://localhost:\(port)/connect")!))
        } throws: { error in
            guard let error = error as? TransportError else { return false }
            return error.code == .tlsFailure && error.message.contains("does not verify")
        }
    }

    @Test("an HTTP answer instead of the switch to WebSocket (here a path without a WebSocket route) is a refused handshake that names the status")
    func refusedHandshake() async throws {
        try await withDevServer { _, baseURL in
            let transport = LibWebSocketsTransport()
            defer { transport.shutdown() }
            var components = URLComponents(url: Self.connectURL(baseURL, user: "u6"), resolvingAgainstBaseURL: false)!
            components.path = "/no-websocket-here"
            await #expect {
                _ = try await transport.connect(WebSocketRequest(url: components.url!, headers: authHeaders(devToken("u6"))))
            } throws: { error in
                guard let error = error as? TransportError else { return false }
                return error.code == .webSocketClosed && error.message.contains(#/it answered HTTP 4\d\d instead of switching to the WebSocket protocol/#)
            }
        }
    }

    @Test("shutting the transport down ends every open connection")
    func shutdown() async throws {
        try await withDevServer { _, baseURL in
            let transport = LibWebSocketsTransport()
            let connection = try await transport.connect(
                WebSocketRequest(url: Self.connectURL(baseURL, user: "u5"), headers: authHeaders(devToken("u5"))))
            var inbound = connection.inbound.makeAsyncIterator()
            _ = await Self.nextText(&inbound)
            transport.shutdown()
            var last: WebSocketInbound?
            while let element = await inbound.next() { last = element }
            guard case .closed? = last else {
                Issue.record("expected .closed after shutdown")
                return
            }
        }
    }
}
