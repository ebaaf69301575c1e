import ChatLocking
import Foundation

/// The answer to a streamed request: its status and headers as soon as they arrive, and the
/// body as it comes (``HTTPBodyStream``).
public struct StreamedTransportResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Response headers with lower-cased names, in order.
    public var headers: [(name: String, value: String)]
    /// The body, chunk by chunk.
    public var body: HTTPBodyStream

    /// A response.
    public init(status: Int, headers: [(name: String, value: String)], body: HTTPBodyStream) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name == wanted }?.value
    }
}

/// A response body read as it arrives, in chunks of bytes as the network delivers them (a
/// chunk may end in the middle of a line, or of a UTF-8 character).
///
/// At most a bounded number of bytes wait unread: past that the transfer pauses until they are
/// read. Reading it once is all there is; ``cancel()``, cancelling the reading task, or dropping
/// the stream closes the connection.
public final class HTTPBodyStream: AsyncSequence, Sendable {
    /// A chunk of the body.
    public typealias Element = Data

    private let nextChunk: @Sendable () async throws -> Data?
    private let cancelTransfer: @Sendable () -> Void

    /// A stream that reads chunks with `next` and closes with `cancel`.
    public init(next: @escaping @Sendable () async throws -> Data?, cancel: @escaping @Sendable () -> Void) {
        nextChunk = next
        cancelTransfer = cancel
    }

    /// A stream of chunks already at hand (a transport that cannot stream, or a test).
    public convenience init(chunks: [Data]) {
        let remaining = Locked(Array(chunks.reversed()))
        self.init(next: { remaining.withLock { $0.popLast() } }, cancel: {})
    }

    deinit {
        cancelTransfer()
    }

    /// The next chunk, or nil at the end of the body (what iterating does).
    public func next() async throws -> Data? {
        try await nextChunk()
    }

    /// Stops the transfer; a read waiting or made later fails with `CancellationError`.
    public func cancel() {
        cancelTransfer()
    }

    /// Reads the chunks in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let stream: HTTPBodyStream

        /// The next chunk, or nil at the end of the body.
        public mutating func next() async throws -> Data? {
            try await stream.nextChunk()
        }
    }

    /// An iterator over the body.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(stream: self)
    }
}
