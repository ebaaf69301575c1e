import ChatModels
import HTTPTypes
import Hummingbird
import Logging

/// Turns every failure into Stream's error envelope, so clients never see an empty body or
/// a bare status: unknown routes become code 16, oversize bodies 22, anything unexpected -1.
struct ErrorEnvelopeMiddleware: RouterMiddleware {
    typealias Context = DevRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return try error.response(from: request, context: context)
        } catch let error as HTTPError {
            let apiError: APIError
            switch error.status {
            case .notFound:
                apiError = APIError(
                    code: 16, status: .notFound,
                    message: "\(request.method) \(request.uri.path) is not an endpoint of this server")
            case .contentTooLarge:
                apiError = .tooLarge("Request", error.body ?? "the request body is too large")
            case .methodNotAllowed:
                apiError = APIError(code: 4, status: .methodNotAllowed, message: "\(request.method) is not allowed on \(request.uri.path)")
            default:
                apiError = APIError(code: 4, status: error.status, message: error.body ?? error.status.reasonPhrase)
            }
            return try apiError.response(from: request, context: context)
        } catch {
            context.logger.error("Unexpected failure handling \(request.method) \(request.uri.path): \(error)")
            return try APIError(code: -1, status: .internalServerError, message: "internal error: \(error)")
                .response(from: request, context: context)
        }
    }
}
