import ChatModels
import ChatTransport
import Foundation
import Logging
import Tracing

extension ChatClient {
    /// Performs a call with Stream's conventions: `api_key` in the query, the token in
    /// `Authorization`. A 429 waits for the rate-limit reset and tries again; a 5xx or a broken
    /// connection is retried with backoff when the call is safe to repeat, for up to
    /// ``ChatClientConfiguration/outageTolerance`` (see ``RetryBudget``).
    func perform(_ endpoint: Endpoint) async throws -> JSONObject {
        try await send(endpoint, retryingOn: [.connectionFailed, .connectionLost, .timedOut]) { try transportRequest(for: endpoint) }
    }

    /// Sends the request `makeRequest` builds (once per attempt) with the retry rules of
    /// ``perform(_:)``, retrying transport errors of the kinds in `retryable` only.
    func send(
        _ endpoint: Endpoint, retryingOn retryable: [TransportError.Code], request makeRequest: () throws -> TransportRequest
    ) async throws -> JSONObject {
        try await traced(endpoint.operation, method: endpoint.method, url: configuration.baseURL.appendingPathComponent(endpoint.path)) { span in
            try await waitForBudget(of: endpoint)
            return try await send(endpoint, retryingOn: retryable, span: span, request: makeRequest)
        }
    }

    /// Waits for the call's turn in the client's ``RateBudget``; a turn further away than the
    /// budget allows is refused before anything is sent.
    private func waitForBudget(of endpoint: Endpoint) async throws {
        guard let budgetGate else { return }
        switch budgetGate.turn(for: endpoint.name) {
        case .go(let wait, let heldBy):
            guard let heldBy else { return }
            metrics.waitedForBudget(heldBy, wait)
            try await Task.sleep(for: wait)
        case .overBudget(let rate, let limit, let wait):
            metrics.refusedOverBudget(rate)
            throw ChatClientError(
                code: .budgetExceeded,
                message: "\(endpoint.operation) was not sent: the client's \(rate) budget of \(limit) is spent, and its next turn is in "
                    + "\(String(format: "%.1f", wait.timeInterval)) s, over the \(DurationText.format(budgetGate.budget.maximumWait)) "
                    + "a call may wait; raise the budget or its maximum wait, or make fewer calls")
        }
    }

    private func send(
        _ endpoint: Endpoint, retryingOn retryable: [TransportError.Code], span: any Span, request makeRequest: () throws -> TransportRequest
    ) async throws -> JSONObject {
        var retries = RetryBudget(maximumAttempts: configuration.maximumAttempts, tolerance: configuration.outageTolerance)
        var isHeld = false
        defer { if isHeld { outageWatch.release(recovered: false) } }
        while true {
            retries.attempt += 1
            try await waitForQuota(of: endpoint)
            var request = try makeRequest()
            tracer.inject(span.context, into: &request.headers, using: TransportHeadersInjector())
            let response: TransportResponse
            do {
                response = try await timedSend(request, operation: endpoint.operation)
                span.recordAttempt(retries.attempt, status: response.status)
                if let quota = RateLimitQuota(headers: response.header) { rateLimitLedger.record(quota, for: endpoint.name) }
            } catch let error as TransportError {
                span.recordAttempt(retries.attempt, status: nil)
                if retryable.contains(error.code), endpoint.isIdempotent, let wait = retries.nextWait() {
                    try await holdOn(endpoint, failure: error.message, reason: "transport_error", for: wait, attempt: retries.attempt, held: &isHeld)
                    continue
                }
                throw ChatClientError(
                    code: .transport, message: "\(endpoint.operation): \(error.message)\(retries.gaveUpNote)", transportError: error,
                    attempts: retries.attempt)
            }
            if response.status == 429, let wait = retries.nextWait(rateLimitedFor: response, maximumWait: configuration.maximumRateLimitWait) {
                logger.info("\(endpoint.operation) was rate limited; waiting for the reset", metadata: ["seconds": "\(wait)"])
                metrics.retrying(endpoint.operation, reason: "rate_limited")
                metrics.waitedForRateLimit(endpoint.operation, wait)
                try await Task.sleep(for: wait)
                continue
            }
            if (500...599).contains(response.status), endpoint.isIdempotent, let wait = retries.nextWait() {
                try await holdOn(endpoint, failure: "HTTP \(response.status)", reason: "server_error", for: wait, attempt: retries.attempt, held: &isHeld)
                continue
            }
            if isHeld, !(500...599).contains(response.status) {
                isHeld = false
                outageWatch.release(recovered: true)
            }
            do {
                return try ChatClient.decode(response, operation: endpoint.operation)
            } catch let error as ChatClientError where retries.attempt > 1 {
                throw error.withAttempts(retries.attempt, note: retries.gaveUpNote)
            }
        }
    }

    /// Waits `wait` before trying a call again after a transient failure; the call's first
    /// failure puts it among the held calls (the outage's first says so at notice).
    private func holdOn(
        _ endpoint: Endpoint, failure: String, reason: String, for wait: Duration, attempt: Int, held isHeld: inout Bool
    ) async throws {
        if !isHeld {
            isHeld = true
            outageWatch.hold(endpoint.operation, failure: failure)
        }
        logger.debug("\(endpoint.operation) failed (\(failure)); retrying", metadata: ["attempt": "\(attempt)"])
        metrics.retrying(endpoint.operation, reason: reason)
        // Cancellation (a shutdown) ends the wait at once and the call fails with CancellationError.
        try await Task.sleep(for: wait)
    }

    /// Waits for the reset of `endpoint`'s quota when the service said it is spent, so that the
    /// call is not sent for a certain 429; a reset further away than
    /// ``ChatClientConfiguration/maximumRateLimitWait`` is not waited for (the call goes, and a
    /// 429 is handled as any other).
    private func waitForQuota(of endpoint: Endpoint) async throws {
        while let wait = rateLimitLedger.take(endpoint.name), wait <= configuration.maximumRateLimitWait {
            logger.info(
                "\(endpoint.operation): the \(endpoint.name) quota is spent; waiting for its reset",
                metadata: ["seconds": "\(String(format: "%.2f", wait.timeInterval))"])
            metrics.waitedForRateLimit(endpoint.operation, wait)
            try await Task.sleep(for: wait)
        }
    }

    /// Sends one attempt and records its status and duration (`transport_error` when no answer came).
    func timedSend(_ request: TransportRequest, operation: String) async throws -> TransportResponse {
        let start = ContinuousClock.now
        do {
            let response = try await http.send(request)
            metrics.requestFinished(operation, status: response.status, duration: ContinuousClock.now - start)
            return response
        } catch {
            metrics.requestFinished(operation, status: nil, duration: ContinuousClock.now - start)
            throw error
        }
    }

    func transportRequest(for endpoint: Endpoint) throws -> TransportRequest {
        var components = URLComponents(url: configuration.baseURL, resolvingAgainstBaseURL: false)
        let basePath = components?.path.hasSuffix("/") == true ? String(components!.path.dropLast()) : (components?.path ?? "")
        components?.path = basePath + endpoint.path
        components?.percentEncodedQuery = ([("api_key", configuration.apiKey)] + endpoint.query)
            .map { "\(ChatClient.queryEscape($0.0))=\(ChatClient.queryEscape($0.1))" }.joined(separator: "&")
        guard let url = components?.url else {
            throw ChatClientError(code: .misconfigured, message: "cannot build a URL from \(configuration.baseURL) and \(endpoint.path)")
        }
        return TransportRequest(
            method: endpoint.method, url: url, headers: standardHeaders,
            body: endpoint.body.map { .data(JSONWriter.data(.object($0)), contentType: "application/json") } ?? .none)
    }

    var standardHeaders: [(name: String, value: String)] {
        [("Authorization", restToken), ("stream-auth-type", "jwt"), ("X-Stream-Client", configuration.clientIdentifier)]
    }

    static func queryEscape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }

    /// A 2xx JSON object, or the server's error as a ``ChatClientError``.
    static func decode(_ response: TransportResponse, operation: String) throws -> JSONObject {
        let json = try? JSONParser().parse(response.body)
        guard (200...299).contains(response.status) else {
            if case .object? = json, let payload = try? APIErrorPayload(json: json!) {
                throw ChatClientError(
                    code: .api, message: payload.message.isEmpty ? "\(operation) failed with HTTP \(response.status)" : payload.message,
                    streamCode: payload.code, httpStatus: response.status)
            }
            // Edge proxies may answer without JSON.
            let text = String(decoding: response.body.prefix(200), as: UTF8.self)
            throw ChatClientError(code: .api, message: "\(operation) failed with HTTP \(response.status): \(text)", httpStatus: response.status)
        }
        guard case .object(let object)? = json else {
            throw ChatClientError(
                code: .invalidResponse, message: "\(operation) answered HTTP \(response.status) without a JSON object", httpStatus: response.status)
        }
        return object
    }
}

/// How long to wait before trying again.
enum RetryDelay {
    /// The longest pause between two tries of a held call: an outage's end is noticed within it.
    static let ceiling = 5.0

    /// Exponential with full jitter: up to 0.2 s, 0.4 s, 0.8 s, ... (at most ``ceiling``).
    static func backoff(attempt: Int) -> Duration {
        let ceiling = min(ceiling, 0.2 * pow(2, Double(min(attempt, 30) - 1)))
        return .milliseconds(Int64(Double.random(in: ceiling / 2...ceiling) * 1000))
    }

    /// Until `x-ratelimit-reset` (Unix seconds) or `Retry-After`, capped at `maximum`.
    static func rateLimitWait(_ response: TransportResponse, maximum: Duration, now: Date = Date()) -> Duration {
        if let retryAfter = response.header("retry-after").flatMap(Double.init) {
            return min(maximum, .milliseconds(Int64(max(0, retryAfter) * 1000)))
        }
        if let reset = response.header("x-ratelimit-reset").flatMap(Double.init) {
            // Rounded up: waking a millisecond early would find the quota still spent.
            let seconds = max(0.05, reset - now.timeIntervalSince1970)
            return min(maximum, .milliseconds(Int64((seconds * 1000).rounded(.up))))
        }
        return min(maximum, .seconds(1))
    }
}
