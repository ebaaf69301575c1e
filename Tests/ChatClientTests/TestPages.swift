import ChatLocking
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// A small web site on a free loopback port for the dev server to fetch link previews from,
/// counting the requests each page gets (an unknown path is not counted).
final class TestPages: Sendable {
    let baseURL: URL
    private let hits: Locked<[String: Int]>

    private init(baseURL: URL, hits: Locked<[String: Int]>) {
        self.baseURL = baseURL
        self.hits = hits
    }

    /// The address of `path` on the site.
    func url(_ path: String) -> URL { URL(string: path, relativeTo: baseURL)!.absoluteURL }

    /// How many times `path` was requested.
    func hits(_ path: String) -> Int { hits.withLock { $0[path] ?? 0 } }

    static let article = """
        <!DOCTYPE html><html><head><title>A plain title</title>
        <meta charset="utf-8">
        <meta property="og:title" content="Morning run &amp; coffee">
        <meta property="og:description" content='Five kilometres along the river &#8211; an easy pace'>
        <meta property="og:image" content="/pictures/run.png">
        <meta property="og:site_name" content="RunLog">
        <!-- <meta property="og:title" content="not this one"> -->
        </head><body><script>var s = '<meta property="og:description" content="nor this">';</script></body></html>
        """

    static let clip = """
        <html><head><meta property="og:title" content="Intervals, explained">
        <meta property="og:video" content="https://videos.example.com/intervals.mp4">
        <meta property="og:url" content="https://runlog.example.com/clips/intervals"></head></html>
        """

    /// Runs the site for the duration of `body`.
    static func withPages<T: Sendable>(_ body: @Sendable (TestPages) async throws -> T) async throws -> T {
        let hits = Locked<[String: Int]>([:])
        let router = Router()
        router.middlewares.add(CountingMiddleware(hits: hits))
        router.get("/article") { _, _ in html(article) }
        router.get("/clip") { _, _ in html(clip) }
        router.get("/bare") { _, _ in html("<html><head><title>Only a title</title></head></html>") }
        router.get("/pictures/run.png") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "image/png"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])))
        }
        router.get("/report.pdf") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/pdf"], body: ResponseBody(byteBuffer: ByteBuffer(string: "%PDF-1.4")))
        }
        router.get("/missing") { _, _ in Response(status: .notFound) }
        router.get("/slow") { _, _ in
            // Longer than the preview timeout of the tests that fetch it, short enough not to hold up shutdown.
            try await Task.sleep(for: .seconds(2))
            return html(article)
        }
        let port = Locked<Int?>(nil)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in port.withLock { $0 = channel.localAddress?.port } },
            logger: Logger(label: "test-pages"))
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: Logger(label: "test-pages")))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            while port.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(10)) }
            let pages = TestPages(baseURL: URL(string: "http://127.0.0.1:\(port.withLock { $0 }!)/")!, hits: hits)
            do {
                let result = try await body(pages)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return result
            } catch {
                tasks.cancelAll()
                throw error
            }
        }
    }

    private static func html(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    private struct CountingMiddleware: RouterMiddleware {
        let hits: Locked<[String: Int]>

        func handle(_ request: Request, context: BasicRequestContext, next: (Request, BasicRequestContext) async throws -> Response) async throws
            -> Response
        {
            hits.withLock { $0[request.uri.path, default: 0] += 1 }
            return try await next(request, context)
        }
    }
}
