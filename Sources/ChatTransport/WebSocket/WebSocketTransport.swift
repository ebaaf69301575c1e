import Foundation

/// Opens WebSocket connections. ``LibWebSocketsTransport`` is the real one.
public protocol WebSocketTransport: Sendable {
    /// Connects and completes the opening handshake; throws ``TransportError`` when the server
    /// cannot be reached, TLS fails, or the upgrade is refused.
    func connect(_ request: WebSocketRequest) async throws -> any WebSocketConnection
}

/// What to connect to.
public struct WebSocketRequest: Sendable {
    /// `ws://` or `wss://`, with the query.
    public var url: URL
    /// Extra upgrade headers (for example `Authorization`).
    public var headers: [(name: String, value: String)]
    /// Larger inbound messages close the connection with code 1009 instead of growing memory.
    public var maximumMessageSize: Int
    /// Inbound messages buffered before reading from the socket pauses (backpressure).
    public var inboundCapacity: Int
    /// Time allowed for the connection and handshake.
    public var connectTimeout: Duration

    /// A request with the defaults: 4 MiB messages, 256 buffered, 10 s to connect.
    public init(
        url: URL, headers: [(name: String, value: String)] = [], maximumMessageSize: Int = 4 << 20, inboundCapacity: Int = 256,
        connectTimeout: Duration = .seconds(10)
    ) {
        self.url = url
        self.headers = headers
        self.maximumMessageSize = maximumMessageSize
        self.inboundCapacity = inboundCapacity
        self.connectTimeout = connectTimeout
    }
}

/// Something received on a WebSocket.
public enum WebSocketInbound: Sendable, Equatable {
    /// A complete text message, as its UTF-8 bytes: what reads it (an event decoder) reads bytes,
    /// so no `String` is made on the way (``text`` makes one where text is wanted).
    case text(Data)
    /// A complete binary message.
    case binary(Data)
    /// The answer to a ping.
    case pong
    /// The connection ended: the close code (1006 when it broke without one) and reason. Always last.
    case closed(code: UInt16, reason: String)
}

extension WebSocketInbound {
    /// A text message's text; nil for anything else.
    public var text: String? {
        guard case .text(let bytes) = self else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// An open WebSocket.
public protocol WebSocketConnection: Sendable {
    /// Everything received, ending with `.closed`. Reading slowly makes the transport stop
    /// reading from the socket once its buffer is full.
    var inbound: WebSocketInboundStream { get }
    /// Queues a text message.
    func send(text: String) throws
    /// Queues a ping frame.
    func ping() throws
    /// Closes with `code` and `reason`; `.closed` follows on `inbound`.
    func close(code: UInt16, reason: String)
}

/// The inbound side of a ``WebSocketConnection``.
public struct WebSocketInboundStream: AsyncSequence, Sendable {
    /// Elements are messages, pongs, and a final `.closed`.
    public typealias Element = WebSocketInbound
    let queue: BoundedInboundQueue

    /// An iterator.
    public func makeAsyncIterator() -> Iterator { Iterator(queue: queue) }

    /// Reads from the bounded queue.
    public struct Iterator: AsyncIteratorProtocol {
        let queue: BoundedInboundQueue
        /// The next element, or nil after `.closed`.
        public mutating func next() async -> WebSocketInbound? { await queue.next() }
        /// The next element, or nil after `.closed`.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> WebSocketInbound? { await queue.next() }
    }
}
