import ChatLocking
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// A small web site on a free loopback port, for testing bots that handle link previews: the
/// dev server fetches the pages its messages link to, as the hosted service does.
///
/// ```swift
/// try await TestWebPages.withPages(["/run": .html(#"<meta property="og:title" content="Run">"#)]) { pages in
///     try await client.channel("messaging:general").sendMessage(text: pages.url("/run").absoluteString)
/// }
/// ```
public final class TestWebPages: Sendable {
    /// What one path answers.
    public struct Page: Sendable {
        /// The HTTP status.
        public var status: Int
        /// The `Content-Type` header.
        public var contentType: String
        /// The body.
        public var body: Data
        /// How long the server waits before answering, for testing timeouts.
        public var delay: Duration

        /// A page.
        public init(status: Int = 200, contentType: String, body: Data, delay: Duration = .zero) {
            self.status = status
            self.contentType = contentType
            self.body = body
            self.delay = delay
        }

        /// An HTML page.
        public static func html(_ text: String, delay: Duration = .zero) -> Page {
            Page(contentType: "text/html; charset=utf-8", body: Data(text.utf8), delay: delay)
        }

        /// An HTML page with these Open Graph properties (`["og:title": "Run"]`), escaped.
        public static func openGraph(_ properties: KeyValuePairs<String, String>, title: String? = nil) -> Page {
            func escaped(_ text: String) -> String {
                text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
                    .replacingOccurrences(of: "<", with: "&lt;")
            }
            let tags = properties.map { "<meta property=\"\(escaped($0.key))\" content=\"\(escaped($0.value))\">" }
            return html("<!DOCTYPE html><html><head>\(title.map { "<title>\(escaped($0))</title>" } ?? "")\(tags.joined())</head></html>")
        }
    }

    /// `http://127.0.0.1:<port>/`.
    public let baseURL: URL
    private let hits: Locked<[String: Int]>

    private init(baseURL: URL, hits: Locked<[String: Int]>) {
        self.baseURL = baseURL
        self.hits = hits
    }

    /// The address of `path` (such as `/run`) on the site.
    public func url(_ path: String) -> URL { URL(string: path, relativeTo: baseURL)!.absoluteURL }

    /// How many times `path` was requested, including paths the site does not have (404).
    public func hits(_ path: String) -> Int { hits.withLock { $0[path] ?? 0 } }

    /// Serves `pages` (by path) for the duration of `body`; any other path answers 404.
    public static func withPages<T: Sendable>(_ pages: [String: Page], _ body: @Sendable (TestWebPages) async throws -> T) async throws -> T {
        let hits = Locked<[String: Int]>([:])
        let logger = Logger(label: "chatbotkit.test-web-pages")
        let port = Locked<Int?>(nil)
        let app = Application(
            responder: PageResponder(pages: pages, hits: hits), configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in port.withLock { $0 = channel.localAddress?.port } }, logger: logger)
        return try await withRunningServices([app], logger: logger) {
            while port.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(10)) }
            return try await body(TestWebPages(baseURL: URL(string: "http://127.0.0.1:\(port.withLock { $0 }!)/")!, hits: hits))
        }
    }

    private struct PageResponder: HTTPResponder {
        typealias Context = BasicRequestContext
        let pages: [String: Page]
        let hits: Locked<[String: Int]>

        func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
            let path = request.uri.path
            hits.withLock { $0[path, default: 0] += 1 }
            guard let page = pages[path] else { return Response(status: .notFound) }
            if page.delay > .zero { try await Task.sleep(for: page.delay) }
            return Response(
                status: HTTPResponse.Status(code: page.status), headers: [.contentType: page.contentType],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: page.body)))
        }
    }
}
