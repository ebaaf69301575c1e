import ChatLocking
import ChatModels
import CompressNIO
import Foundation
import Logging
import NIOCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Posts the app's events to its webhook, as the hosted service does: one at a time, in the
/// order they happened, each signed (`X-Signature`: hex HMAC-SHA256 of the JSON with the API
/// secret) and named (`X-Webhook-Id`, the same on every attempt, and `X-Webhook-Attempt`).
///
/// An answer of 408, 429 or 5xx and a timeout get three attempts, a connection that fails two,
/// all within the deadline (15 s); another status is the receiver's refusal and is not tried
/// again. Events that cannot wait (more than `capacity` queued behind a slow receiver) are
/// dropped and logged: the service does not hold them either, which is what a bot's catch-up
/// (`/sync` from its checkpoint) is for.
final class WebhookSender: Sendable {
    /// One event on its way.
    struct Delivery: Sendable {
        let id: String
        let type: String
        let json: [UInt8]
        let settings: WebhookSettings
    }

    /// What one attempt came to.
    private enum Outcome {
        case delivered
        /// Another attempt may go, up to `attempts` in all.
        case failed(String, attempts: Int)
        /// The receiver answered that it does not want it (a 4xx other than 408 and 429).
        case refused(Int)
    }

    private let apiKey: String
    private let signer: PayloadSigner
    private let timeout: Duration
    private let deadline: Duration
    private let logger: Logger
    /// Made at the first event posted: most servers have no webhook, and a URLSession holds
    /// libcurl state for the life of the process.
    private let session = Locked<URLSession?>(nil)
    private let inbox: AsyncStream<Delivery>.Continuation
    private let deliveries: AsyncStream<Delivery>
    private let drainer = Locked<Task<Void, Never>?>(nil)
    /// The deliveries made, failed and dropped so far (for tests and the log).
    let counts = Locked(Counts())

    /// How many deliveries went how.
    struct Counts: Sendable, Equatable {
        var delivered = 0
        var failed = 0
        var dropped = 0
    }

    init(apiKey: String, signer: PayloadSigner, timeout: Duration, deadline: Duration, capacity: Int = 10_000, logger: Logger) {
        self.apiKey = apiKey
        self.signer = signer
        self.timeout = timeout
        self.deadline = deadline
        self.logger = logger
        (deliveries, inbox) = AsyncStream<Delivery>.makeStream(bufferingPolicy: .bufferingOldest(capacity))
    }

    /// Queues an event of `type`, written as `json`, for the webhook, when its type is one the app posts.
    func post(_ json: String, type: String, settings: WebhookSettings) {
        guard settings.posts(type) else { return }
        startDraining()
        let delivery = Delivery(id: UUID().uuidString.lowercased(), type: type, json: Array(json.utf8), settings: settings)
        if case .dropped = inbox.yield(delivery) {
            counts.withLock { $0.dropped += 1 }
            logger.warning("Webhook \(settings.url) is too far behind; a \(type) event was not posted")
        }
    }

    /// Takes no more events, and gives the queued ones until `grace` to go before giving up on them.
    func finish(within grace: Duration) async {
        inbox.finish()
        guard let task = drainer.withLock({ $0 }) else { return }
        let timer = Task {
            try? await Task.sleep(for: grace)
            task.cancel()
        }
        await task.value
        timer.cancel()
        session.withLock { $0 }?.finishTasksAndInvalidate()
    }

    private func startDraining() {
        drainer.withLock { drainer in
            guard drainer == nil else { return }
            drainer = Task { [self] in
                for await delivery in deliveries {
                    guard !Task.isCancelled else { break }
                    await send(delivery)
                }
            }
        }
    }

    /// Makes the attempts at one delivery.
    private func send(_ delivery: Delivery) async {
        let signature = signer.signature(of: delivery.json)
        let body: Data
        do {
            body = delivery.settings.gzips ? try Self.gzip(delivery.json) : Data(delivery.json)
        } catch {
            logger.error("A \(delivery.type) event could not be gzipped for the webhook: \(error)")
            return
        }
        let started = ContinuousClock.now
        var attempt = 1
        while !Task.isCancelled {
            var request = URLRequest.signedPost(to: delivery.settings.url, json: body, apiKey: apiKey, signature: signature, timeout: timeout)
            if delivery.settings.gzips { request.setValue("gzip", forHTTPHeaderField: "Content-Encoding") }
            request.setValue(delivery.id, forHTTPHeaderField: "X-Webhook-Id")
            request.setValue(String(attempt), forHTTPHeaderField: "X-Webhook-Attempt")
            request.setValue("chatbotkit-dev-webhook", forHTTPHeaderField: "User-Agent")
            switch await post(request) {
            case .delivered:
                counts.withLock { $0.delivered += 1 }
                return
            case .refused(let status):
                counts.withLock { $0.failed += 1 }
                logger.warning("Webhook \(delivery.settings.url) refused a \(delivery.type) event with HTTP \(status); it is not posted again")
                return
            case .failed(let reason, let attempts):
                let retryAt = ContinuousClock.now + .milliseconds(250 * attempt)
                guard attempt < attempts, retryAt - started < deadline, !Task.isCancelled else {
                    counts.withLock { $0.failed += 1 }
                    logger.warning("Webhook \(delivery.settings.url) did not take a \(delivery.type) event (\(reason), attempt \(attempt)); it is dropped")
                    return
                }
                logger.debug("Webhook attempt \(attempt) failed (\(reason)); trying again", metadata: ["webhook_id": "\(delivery.id)"])
                try? await Task.sleep(until: retryAt)
                attempt += 1
            }
        }
    }

    private func post(_ request: URLRequest) async -> Outcome {
        let session = session.withLock { session in
            if let session { return session }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = timeout.seconds
            configuration.timeoutIntervalForResource = timeout.seconds
            let made = URLSession(configuration: configuration)
            session = made
            return made
        }
        do {
            let (_, response) = try await session.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            switch status {
            case 200..<300: return .delivered
            case 408, 429, 500...: return .failed("HTTP \(status)", attempts: 3)
            default: return .refused(status)
            }
        } catch let error as URLError where error.code == .timedOut {
            return .failed("no answer within \(timeout)", attempts: 3)
        } catch {
            return .failed("\(error.localizedDescription)", attempts: 2)
        }
    }

    private static func gzip(_ json: [UInt8]) throws -> Data {
        var buffer = ByteBuffer(bytes: json)
        let compressed = try buffer.compress(with: .gzip())
        return Data(compressed.readableBytesView)
    }
}
