import ChatLocking
import ChatModels
import ChatTransport
import Foundation
import Logging

/// Posts batches of spans to the collector, and tries a batch again when the collector is
/// busy (429, 502, 503, 504) or cannot be reached, as OTLP/HTTP asks; anything else drops the
/// batch. It says once that the collector fails, and once that it answers again.
struct OTLPExporter: Sendable {
    let configuration: OTLPTracerConfiguration
    let transport: any HTTPTransport
    let encoder: OTLPTraceEncoder
    let metrics: TelemetryMetrics
    let logger: Logger
    private let isFailing = Locked(false)

    init(configuration: OTLPTracerConfiguration, transport: any HTTPTransport, encoder: OTLPTraceEncoder, metrics: TelemetryMetrics, logger: Logger) {
        self.configuration = configuration
        self.transport = transport
        self.encoder = encoder
        self.metrics = metrics
        self.logger = logger
    }

    /// The answer to one request: how many spans the collector refused, and why.
    struct Accepted {
        var rejectedSpans: Int
        var message: String?
    }

    /// Sends `batch`, trying again while attempts are left and `deadline` (if any) allows.
    func export(_ batch: [FinishedSpan], before deadline: ContinuousClock.Instant?) async {
        let body = encoder.encode(batch)
        var attempt = 0
        while true {
            attempt += 1
            do {
                let accepted = try await post(body)
                if accepted.rejectedSpans > 0 {
                    metrics.dropped(accepted.rejectedSpans, reason: .rejected)
                    logger.warning(
                        "the collector refused \(accepted.rejectedSpans) of \(batch.count) spans: \(accepted.message ?? "no reason given")")
                }
                metrics.exported(max(0, batch.count - accepted.rejectedSpans), endpoint: configuration.tracesURL.path)
                let wasFailing = isFailing.withLock { failing in
                    defer { failing = false }
                    return failing
                }
                if wasFailing {
                    logger.info("spans reach \(configuration.tracesURL.absoluteString) again")
                }
                return
            } catch {
                let wait = retryDelay(for: error, attempt: attempt)
                if let wait, attempt < configuration.maximumAttempts, deadline.map({ ContinuousClock.now + wait < $0 }) ?? true {
                    logger.debug("sending \(batch.count) spans failed (\(error.message)); trying again", metadata: ["attempt": "\(attempt)"])
                    try? await Task.sleep(for: wait)
                    if !Task.isCancelled { continue }
                }
                metrics.dropped(batch.count, reason: .exportFailed)
                let first = isFailing.withLock { failing in
                    defer { failing = true }
                    return !failing
                }
                let message = "\(batch.count) spans were dropped: \(error.message)"
                if first {
                    logger.error("\(message); spans are dropped while this lasts")
                } else {
                    logger.debug("\(message)")
                }
                return
            }
        }
    }

    /// Posts one request body; the collector's answer, or why it did not take it.
    func post(_ body: Data) async throws(TelemetryError) -> Accepted {
        let url = configuration.tracesURL
        var request = TransportRequest(
            method: "POST", url: url, headers: configuration.headers, body: .data(body, contentType: "application/json"),
            connectTimeout: min(configuration.exportTimeout, .seconds(10)), idleTimeout: configuration.exportTimeout)
        request.headers.append(("Accept", "application/json"))
        let response: TransportResponse
        do {
            response = try await transport.send(request)
        } catch let error as TransportError {
            throw TelemetryError(code: .unreachable, message: "cannot reach the collector at \(url.absoluteString): \(error.message)")
        } catch {
            throw TelemetryError(code: .unreachable, message: "cannot reach the collector at \(url.absoluteString): \(error)")
        }
        let json = try? JSONParser().parse(response.body)
        guard (200...299).contains(response.status) else {
            // OTLP/HTTP answers a failure with a google.rpc.Status; proxies may answer anything.
            let reason = Self.string(json, "message") ?? String(decoding: response.body.prefix(200), as: UTF8.self)
            throw TelemetryError(
                code: .refused,
                message: "the collector at \(url.absoluteString) answered HTTP \(response.status)\(reason.isEmpty ? "" : ": \(reason)")",
                httpStatus: response.status, retryAfter: response.header("retry-after").flatMap(Double.init).map { .milliseconds(Int64(max(0, $0) * 1000)) })
        }
        guard case .object(let object)? = json, case .object(let partial)? = object["partialSuccess"] else { return Accepted(rejectedSpans: 0) }
        let rejected: Int? =
            switch partial["rejectedSpans"] {
            case .string(let text)?: Int(text)
            case .number(let number)?: number.int
            default: nil
            }
        return Accepted(rejectedSpans: rejected ?? 0, message: Self.string(.object(partial), "errorMessage"))
    }

    /// How long to wait before trying again, or nil when trying again would not help.
    private func retryDelay(for error: TelemetryError, attempt: Int) -> Duration? {
        switch error.httpStatus {
        case nil, 429?, 502?, 503?, 504?:
            if let asked = error.retryAfter { return min(asked, .seconds(5)) }
            let backoff = Duration.milliseconds(250 << min(attempt - 1, 5))
            return min(backoff, .seconds(5))
        default:
            return nil
        }
    }

    private static func string(_ json: RawJSON?, _ key: String) -> String? {
        guard case .object(let object)? = json, case .string(let text)? = object[key], !text.isEmpty else { return nil }
        return text
    }
}
