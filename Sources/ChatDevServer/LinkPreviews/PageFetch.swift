import ChatLocking
import ChatModels
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a fetch of a linked page brought back: where it ended up, its status and type, and at
/// most the first `byteLimit` bytes of an HTML body (media bodies are not read at all).
struct FetchedPage: Sendable {
    var finalURL: URL
    var status: Int
    var contentType: String
    var body: Data
}

/// One GET of a linked page through Foundation's URLSession.
///
/// The dev server may not use ChatTransport (libcurl): it must stay an implementation of the
/// protocol independent of the client's. URLSession comes with the toolchain, follows
/// redirects and speaks TLS. A delegate is used because Linux has no `bytes(for:)`, and a
/// preview needs neither an image's bytes nor more than the head of a page.
final class PageFetch: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct Progress {
        var response: HTTPURLResponse?
        var body = Data()
        var continuation: CheckedContinuation<FetchedPage, any Error>?
    }

    private let byteLimit: Int
    private let progress = Locked(Progress())

    private init(byteLimit: Int) { self.byteLimit = byteLimit }

    /// Fetches `url`, giving up after `timeout` in all.
    static func get(_ url: URL, timeout: Duration, byteLimit: Int, userAgent: String) async throws -> FetchedPage {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout.seconds
        configuration.timeoutIntervalForResource = timeout.seconds
        configuration.httpAdditionalHeaders = ["User-Agent": userAgent, "Accept": "text/html,application/xhtml+xml,*/*;q=0.8"]
        let fetch = PageFetch(byteLimit: byteLimit)
        let session = URLSession(configuration: configuration, delegate: fetch, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: url)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                fetch.progress.withLock { $0.continuation = continuation }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        progress.withLock { $0.response = http }
        let type = http?.value(forHTTPHeaderField: "Content-Type") ?? ""
        if let http, (200..<300).contains(http.statusCode), PageFetch.isHTML(type) {
            completionHandler(.allow)
        } else {
            // The status and type are all a preview of an image, or a refusal, needs.
            finish(with: .success(()))
            completionHandler(.cancel)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let full = progress.withLock { progress -> Bool in
            progress.body.append(data.prefix(byteLimit - progress.body.count))
            return progress.body.count >= byteLimit
        }
        if full {
            finish(with: .success(()))
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        finish(with: error.map { .failure($0) } ?? .success(()))
    }

    /// Resumes the waiting caller once: with what arrived so far, or with the error.
    private func finish(with result: Result<Void, any Error>) {
        let (continuation, page) = progress.withLock { progress -> (CheckedContinuation<FetchedPage, any Error>?, FetchedPage?) in
            defer { progress.continuation = nil }
            return (
                progress.continuation,
                progress.response.map { response in
                    FetchedPage(
                        finalURL: response.url ?? URL(string: "about:blank")!, status: response.statusCode,
                        contentType: response.value(forHTTPHeaderField: "Content-Type") ?? "", body: progress.body)
                }
            )
        }
        guard let continuation else { return }
        switch result {
        case .success:
            if let page { continuation.resume(returning: page) } else { continuation.resume(throwing: URLError(.badServerResponse)) }
        case .failure(let error):
            continuation.resume(throwing: error)
        }
    }

    static func isHTML(_ contentType: String) -> Bool {
        let essence = MIMEType.essence(of: contentType)
        return essence == "text/html" || essence == "application/xhtml+xml"
    }
}
