import ChatModels

extension ChatClient {
    /// The app's quotas from `GET /rate_limits`: every endpoint's, on the platforms asked for
    /// (all four when none is), or only those of `endpoints`. An endpoint name the service does
    /// not know is refused (`chat.api`, code 4).
    public func rateLimits(platforms: Set<RateLimitsReport.Platform> = [], endpoints: [EndpointName] = []) async throws -> RateLimitsReport {
        var query: [(String, String)] = RateLimitsReport.Platform.allCases.filter(platforms.contains).map { ($0.rawValue, "true") }
        if !endpoints.isEmpty { query.append(("endpoints", endpoints.map(\.rawValue).joined(separator: ","))) }
        let response = try await perform(.get("/rate_limits", query: query, operation: EndpointName.getRateLimits.rawValue))
        return RateLimitsReport(json: response)
    }

    /// What the service said last about `endpoint`'s quota, in the headers of this client's
    /// calls, less the calls sent since; nil before any call to it was answered.
    public func observedRateLimit(for endpoint: EndpointName) -> RateLimitQuota? {
        rateLimitLedger.quota(for: endpoint)
    }

    /// Every quota this client has seen, by endpoint (see ``observedRateLimit(for:)``).
    public var observedRateLimits: [EndpointName: RateLimitQuota] { rateLimitLedger.all }

    /// Whether a call of `endpoint` made now would wait: for its turn in the client's
    /// ``RateBudget``, or for the reset of a quota the service said is spent. Nothing is
    /// reserved; what can be skipped (a streamed reply's partial update) is skipped instead.
    package func wouldWaitForQuota(of endpoint: EndpointName) -> Bool {
        if rateLimitLedger.isSpent(endpoint) { return true }
        return (budgetGate?.wait(for: endpoint) ?? .zero) > .zero
    }
}
