import ChatModels
import Foundation
import Hummingbird

extension AppRoutes {
    /// `GET /rate_limits`: each endpoint's quota in the current window, per platform
    /// (`server_side`, `android`, `ios`, `web` maps of `{limit, remaining, reset}`). The query's
    /// `server_side=true` (and the others) pick platforms, all four when none is picked;
    /// `endpoints=SendMessage,UploadFile` picks endpoints, every one when left out.
    func rateLimits(_ request: Request) async throws -> JSONReply {
        let operation = EndpointName.getRateLimits.rawValue
        _ = try await state.authenticate(request)
        let picked = RequestPlatform.allCases.filter { request.query($0.rawValue)?.lowercased() == "true" }
        let platforms = picked.isEmpty ? RequestPlatform.allCases : picked
        let endpoints = try Self.endpoints(request.query("endpoints"), operation: operation)
        var answer = JSONObject()
        for platform in platforms {
            let quotas = state.rateLimiter.quotas(endpoints, platform: platform)
            answer[platform.rawValue] = .object(
                JSONObject(
                    quotas.sorted { $0.key < $1.key }.map { endpoint, quota in
                        (
                            endpoint.rawValue,
                            RawJSON.object([
                                "limit": .number(JSONNumber(quota.limit)), "remaining": .number(JSONNumber(quota.remaining)),
                                "reset": .number(JSONNumber(quota.reset)),
                            ])
                        )
                    }))
        }
        return JSONReply(answer)
    }

    /// The endpoints named in `endpoints` (comma-separated), or all of them; an unknown name is
    /// refused with the known ones, since a misspelt name would otherwise just be missing.
    static func endpoints(_ list: String?, operation: String) throws -> [EndpointName] {
        guard let list, !list.isEmpty else { return EndpointName.known }
        var names: [EndpointName] = []
        for item in list.split(separator: ",") {
            let name = EndpointName(rawValue: item.trimmingCharacters(in: .whitespaces))
            guard EndpointName.known.contains(name) else {
                throw APIError.input(
                    operation, "endpoints: \"\(name)\" is not an endpoint; known: \(EndpointName.known.map(\.rawValue).joined(separator: ", "))")
            }
            if !names.contains(name) { names.append(name) }
        }
        return names
    }
}
