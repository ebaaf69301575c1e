import ChatBotKit
import ChatClient
import ChatLocking
import ChatModels
import CoreMetrics
import Crypto
import Foundation
import Logging
import Metrics

/// Where the app's webhook requests come in and the bots that take their events that way get
/// them. One intake serves an app (its key and secret): the service posts every event of the
/// app once, and the intake passes each to every bot subscribed, which keeps those of its own
/// channels.
///
/// ``receive(body:headers:)`` answers fast, once the event is queued for the bots, as the
/// service wants. It answers 503 (which the service tries again, with the same `X-Webhook-Id`)
/// while no bot is subscribed yet and when a bot's queue is full, so no event is taken that no
/// bot will see; a retry of an event taken before is answered 200 and not passed on twice.
public final class WebhookIntake: BotEventFeed {
    /// The answer to one request.
    public struct Receipt: Sendable, Equatable {
        /// The HTTP status: 200 taken (or taken before), 503 to be tried again, 4xx refused.
        public let status: Int
        /// What happened, for the response body and the log.
        public let message: String
        /// The error code of a refusal (`webhook.signature_mismatch`, …) or of a 503 (`webhook.busy`).
        public let code: String?
    }

    /// The app's key (requests for another app are refused).
    public let apiKey: String
    private let signingKey: SymmetricKey
    /// The largest body taken, as sent and inflated.
    public let maximumBodySize: Int
    /// How many events a bot may have waiting before requests are answered 503.
    public let queueCapacity: Int
    private let logger: Logger
    /// An array, not a dictionary: each request takes a snapshot, which for an array is a retain.
    private let subscribers = Locked<[Subscriber]>([])
    /// The webhook ids of the events taken, and of those being taken now: one lock for both,
    /// so two attempts at one event that arrive together (the service gave up waiting on the
    /// first) cannot both be passed on.
    private let seen = Locked(SeenIds())
    private struct SeenIds {
        var taken = RecentKeys(capacity: 50_000)
        /// As many as requests are being handled at once (a few): an array, searched, costs less
        /// than hashing each id into a set and out again.
        var inFlight: [String] = []
    }
    private let outcomes: [String: Counter]

    private struct Subscriber {
        let id: UUID
        let name: String
        let continuation: AsyncStream<Event>.Continuation
    }

    /// What the outcomes of `chatbotkit_webhook_requests_total` are.
    static let outcomes = ["taken", "retried", "refused", "busy"]

    /// An intake for the app with `apiKey` and `apiSecret`; each bot may have up to
    /// `queueCapacity` events waiting.
    public init(
        apiKey: String, apiSecret: String, maximumBodySize: Int = 4 << 20, queueCapacity: Int = 10_000,
        metricsFactory: (any MetricsFactory)? = nil, logger: Logger = Logger(label: "chatbotkit.webhook")
    ) {
        self.apiKey = apiKey
        signingKey = WebhookDelivery.signingKey(apiSecret)
        self.maximumBodySize = maximumBodySize
        self.queueCapacity = queueCapacity
        self.logger = logger
        let factory = metricsFactory ?? MetricsSystem.factory
        outcomes = Dictionary(
            uniqueKeysWithValues: Self.outcomes.map { ($0, Counter(label: "chatbotkit_webhook_requests_total", dimensions: [("outcome", $0)], factory: factory)) })
    }

    /// The events of every request taken from now on, for one bot (`name` is for the log),
    /// until the returned stream's consumer stops or ``unsubscribe(_:)``.
    public func subscribe(name: String) -> (id: UUID, events: AsyncStream<Event>) {
        let (events, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingOldest(queueCapacity))
        let id = UUID()
        continuation.onTermination = { [weak self] _ in self?.subscribers.withLock { $0.removeAll { $0.id == id } } }
        subscribers.withLock { $0.append(Subscriber(id: id, name: name, continuation: continuation)) }
        return (id, events)
    }

    /// Ends one bot's events (its stream finishes once it has read what was queued).
    public func unsubscribe(_ id: UUID) {
        let removed = subscribers.withLock { subscribers -> Subscriber? in
            guard let index = subscribers.firstIndex(where: { $0.id == id }) else { return nil }
            return subscribers.remove(at: index)
        }
        removed?.continuation.finish()
    }

    /// How many bots take events from this intake.
    public var subscriberCount: Int { subscribers.withLock { $0.count } }

    /// Checks and reads one request, and passes its event to the subscribed bots.
    public func receive(body: Data, headers: [String: String]) -> Receipt {
        let delivery: WebhookDelivery
        do {
            delivery = try WebhookDelivery(body: body, headers: headers, apiKey: apiKey, signingKey: signingKey, maximumSize: maximumBodySize)
        } catch {
            outcomes["refused"]?.increment()
            logger.warning("A webhook request was refused: \(error.message)", metadata: ["code": "\(error.code)"])
            return Receipt(status: error.httpStatus, message: error.message, code: error.code.rawValue)
        }
        let type = delivery.event.type.rawValue
        if let id = delivery.id {
            let claim = seen.withLock { seen -> Claim in
                if seen.taken.contains(id) { return .takenBefore }
                if seen.inFlight.contains(id) { return .beingTaken }
                seen.inFlight.append(id)
                return .claimed
            }
            switch claim {
            case .takenBefore:
                outcomes["retried"]?.increment()
                logger.debug("A webhook request was sent again (attempt \(delivery.attempt)); its event was taken before", metadata: ["webhook_id": "\(id)"])
                return Receipt(status: 200, message: "\(type) was taken before", code: nil)
            case .beingTaken:
                // Answered 503, not 200: the other attempt may yet be refused, and the service
                // then needs to send it again.
                outcomes["busy"]?.increment()
                return Receipt(status: 503, message: "this \(type) is being taken by another request; try again", code: "webhook.busy")
            case .claimed:
                break
            }
        }
        let receipt = pass(delivery.event, type: type)
        if let id = delivery.id {
            seen.withLock { seen in
                if let index = seen.inFlight.firstIndex(of: id) { seen.inFlight.remove(at: index) }
                if receipt.status == 200 { seen.taken.insert(id) }
            }
        }
        return receipt
    }

    private enum Claim {
        case takenBefore, beingTaken, claimed
    }

    /// Passes `event` to every subscribed bot: 200 when all took it, 503 when none is
    /// subscribed or one is too far behind.
    private func pass(_ event: Event, type: String) -> Receipt {
        let current = subscribers.withLock { $0 }
        guard !current.isEmpty else {
            outcomes["busy"]?.increment()
            return Receipt(status: 503, message: "no bot takes events yet; try again", code: "webhook.busy")
        }
        var full: [String] = []
        for subscriber in current {
            if case .dropped = subscriber.continuation.yield(event) { full.append(subscriber.name) }
        }
        guard full.isEmpty else {
            // The bots that did get it skip it when it comes again (they keep what they handled).
            outcomes["busy"]?.increment()
            logger.warning("Bots \(full.joined(separator: ", ")) are \(queueCapacity) events behind; the service is asked to send \(type) again")
            return Receipt(status: 503, message: "bots \(full.joined(separator: ", ")) are behind; try again", code: "webhook.busy")
        }
        outcomes["taken"]?.increment()
        return Receipt(status: 200, message: "taken", code: nil)
    }
}
