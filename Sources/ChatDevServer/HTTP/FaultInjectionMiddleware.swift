import ChatLocking
import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// Answers with an injected failure when one matches the request (see `DevServer.injectFault`).
struct FaultInjectionMiddleware: RouterMiddleware {
    typealias Context = DevRequestContext
    let state: DevServerState

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        let fault = state.faults.withLock { faults -> InjectedFault? in
            guard let index = faults.firstIndex(where: { path.contains($0.pathContains) && $0.remaining > 0 }) else { return nil }
            faults[index].remaining -= 1
            let fault = faults[index]
            if faults[index].remaining == 0 { faults.remove(at: index) }
            return fault
        }
        guard let fault else { return try await next(request, context) }
        var error = APIError(
            code: fault.code, status: HTTPResponse.Status(code: fault.status),
            message: "injected failure for \(path) (\(fault.remaining) more to come)")
        if fault.status == 429 {
            error.headers = [
                RateLimiter.limitField: "1", RateLimiter.remainingField: "0",
                RateLimiter.resetField: String(Int(Date().timeIntervalSince1970) + fault.resetAfterSeconds),
            ]
        }
        throw error
    }
}
