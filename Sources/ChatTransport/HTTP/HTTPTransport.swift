import Foundation

/// Sends HTTP requests. ``CurlHTTPTransport`` is the real one; tests of code above the
/// transport can provide their own.
public protocol HTTPTransport: Sendable {
    /// Performs `request`; HTTP error statuses are responses, not errors. Cancelling the calling
    /// task cancels the transfer.
    func send(_ request: TransportRequest) async throws -> TransportResponse

    /// Performs `request` and answers as soon as the status and headers arrive, with the body
    /// to read as it comes (server-sent events, a model's streamed answer). The request's
    /// `destination` is not used. Cancelling the calling task before the headers come, or the
    /// reading of the body after, cancels the transfer.
    func stream(_ request: TransportRequest) async throws -> StreamedTransportResponse
}

extension HTTPTransport {
    /// For a transport that cannot stream: the whole response, then its body as one chunk.
    public func stream(_ request: TransportRequest) async throws -> StreamedTransportResponse {
        let response = try await send(request)
        return StreamedTransportResponse(
            status: response.status, headers: response.headers, body: HTTPBodyStream(chunks: response.body.isEmpty ? [] : [response.body]))
    }
}

/// An HTTP request for a ``HTTPTransport``.
public struct TransportRequest: Sendable {
    /// What the request carries.
    public enum Body: Sendable {
        /// No body.
        case none
        /// Bytes in memory (JSON bodies).
        case data(Data, contentType: String)
        /// `multipart/form-data`; file parts are streamed from disk, never read whole.
        case multipart([MultipartPart])
    }

    /// Where the response body goes.
    public enum Destination: Sendable {
        /// Collected in memory, refusing more than `limit` bytes.
        case memory(limit: Int)
        /// Streamed to a file (created or truncated).
        case file(URL)
        /// The first `limit` bytes kept in memory, and the transfer ended there without an
        /// error: for the head of a file whose host answered a `Range` request with all of it.
        case head(limit: Int)
    }

    /// `GET`, `POST`, ...
    public var method: String
    /// The full URL, query included.
    public var url: URL
    /// Request headers, in order.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: Body
    /// Where the response body goes.
    public var destination: Destination
    /// Time allowed to connect.
    public var connectTimeout: Duration
    /// Fails when no byte moves in either direction for this long (large transfers take as long
    /// as they need as long as they make progress).
    public var idleTimeout: Duration
    /// Called on the transport's thread as bytes move.
    public var progress: (@Sendable (TransferProgress) -> Void)?

    /// A request; bodies default to none, responses to memory (64 MiB at most).
    public init(
        method: String, url: URL, headers: [(name: String, value: String)] = [], body: Body = .none,
        destination: Destination = .memory(limit: 64 << 20), connectTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(30), progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.destination = destination
        self.connectTimeout = connectTimeout
        self.idleTimeout = idleTimeout
        self.progress = progress
    }
}

/// One part of a `multipart/form-data` body.
public struct MultipartPart: Sendable {
    /// Where the part's bytes come from.
    public enum Content: Sendable {
        /// Bytes in memory (small fields such as `user`).
        case data(Data)
        /// A file, streamed from disk as it is sent.
        case file(URL)
    }

    /// The form field name.
    public var name: String
    /// The file name sent with the part.
    public var filename: String?
    /// The part's `Content-Type`.
    public var contentType: String?
    /// The bytes.
    public var content: Content

    /// A part.
    public init(name: String, filename: String? = nil, contentType: String? = nil, content: Content) {
        self.name = name
        self.filename = filename
        self.contentType = contentType
        self.content = content
    }
}

/// How far a transfer has come. Totals are 0 while unknown.
public struct TransferProgress: Sendable, Hashable {
    /// Bytes sent so far.
    public var uploaded: Int64
    /// Bytes to send in all.
    public var uploadTotal: Int64
    /// Bytes received so far.
    public var downloaded: Int64
    /// Bytes to receive in all.
    public var downloadTotal: Int64

    /// A progress report.
    public init(uploaded: Int64, uploadTotal: Int64, downloaded: Int64, downloadTotal: Int64) {
        self.uploaded = uploaded
        self.uploadTotal = uploadTotal
        self.downloaded = downloaded
        self.downloadTotal = downloadTotal
    }
}

/// An HTTP response.
public struct TransportResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Response headers with lower-cased names, in order.
    public var headers: [(name: String, value: String)]
    /// The body, when it was collected in memory.
    public var body: Data
    /// The file the body was written to, when it was streamed to disk.
    public var file: URL?

    /// A response.
    public init(status: Int, headers: [(name: String, value: String)], body: Data, file: URL? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.file = file
    }

    /// The first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name == wanted }?.value
    }
}
