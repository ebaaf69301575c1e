import ChatModels
import HTTPTypes
import Hummingbird
import Logging

/// The outermost responder: collapses duplicate slashes (the Python SDK sends `//app` when the
/// base URL ends in `/`) and guarantees an enveloped JSON body for any failure that escaped
/// the router.
struct APIResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context == DevRequestContext {
    typealias Context = DevRequestContext
    let inner: Inner

    func respond(to request: Request, context: Context) async throws -> Response {
        var request = request
        if let path = request.head.path, path.contains("//") {
            var head = request.head
            head.path = PathNormalizer.collapseSlashes(path)
            request = Request(head: head, body: request.body)
        }
        do {
            return try await inner.respond(to: request, context: context)
        } catch let error as APIError {
            return try error.response(from: request, context: context)
        } catch {
            return try APIError(code: -1, status: .internalServerError, message: "internal error: \(error)")
                .response(from: request, context: context)
        }
    }
}

/// Path clean-up shared by REST and the WebSocket upgrade.
enum PathNormalizer {
    /// `//a///b?x=//y` → `/a/b?x=//y`: only the path part is touched.
    static func collapseSlashes(_ target: String) -> String {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var path = ""
        var previousWasSlash = false
        for character in parts[0] {
            if character == "/" {
                if previousWasSlash { continue }
                previousWasSlash = true
            } else {
                previousWasSlash = false
            }
            path.append(character)
        }
        return parts.count > 1 ? path + "?" + parts[1] : path
    }
}
