import ChatBotKit
import ChatClient
import ChatLocking
import ChatModels
import CoreMetrics
import Crypto
import Foundation
import Logging
import Metrics

/// Where the app's Before Message Send requests come in (its `before_message_send_hook_url`)
/// and the bots that judge messages before they are sent (`Bot.beforeSend(_:)`) answer them.
///
/// What Stream's "Before Message Send Webhook" page says, and this follows: the service posts
/// `{"message", "user", "channel", "request_info"}` signed like every webhook (`X-Signature`,
/// the hex HMAC-SHA256 of the body with the API secret), makes one attempt, waits
/// `before_message_send_hook_attempt_timeout_ms` (1,500 ms by default, 5,000 at most) for it,
/// and "fails open": a hook that is late, unreachable or answers 4xx/5xx lets the message
/// through. So this intake answers before that: a handler still running at
/// ``attemptTimeout`` less ``answerMargin`` is cancelled and the message let through (what the
/// service would do anyway, said in time). A handler that throws lets it through too.
///
/// Stateless between requests (the send path makes one attempt, so there is nothing to
/// deduplicate): several nodes can serve one app behind a load balancer.
public final class BeforeSendIntake: Sendable {
    /// The answer to one request: the HTTP status and the JSON body.
    public struct Answer: Sendable, Equatable {
        /// 200 with the decision, 503 while no bot judges messages, 4xx for a request that is not the service's.
        public let status: Int
        /// `{}` (let it through), `{"message": {…}}` (replace it, or refuse it as type `error`), or `{"code", "message"}`.
        public let body: Data
    }

    private struct Registration: Sendable {
        let bot: Bot
        let client: ChatClient
    }

    /// The app's key (requests for another app are refused).
    public let apiKey: String
    /// The largest body taken, as sent and inflated.
    public let maximumBodySize: Int
    /// What is kept back from the service's wait for the way back (the answer's bytes, the
    /// network): the handlers' `BeforeSendContext.deadline` is this much before the attempt times out.
    public let answerMargin: Duration
    private let signingKey: SymmetricKey
    private let timeout: Locked<Duration>
    private let registrations = Locked<[String: Registration]>([:])
    private let runner = Locked<BotRunner?>(nil)
    private let logger: Logger
    private let outcomes: [String: Counter]
    let followUps: BeforeSendFollowUps

    /// What the outcomes of `chatbotkit_before_send_total` are.
    static let outcomes = ["pass", "replace", "reject", "timed_out", "failed", "no_bot", "refused"]

    /// An intake for the app with `apiKey` and `apiSecret`, for an app whose hook times out after
    /// `attemptTimeout` (its `before_message_send_hook_attempt_timeout_ms`).
    public init(
        apiKey: String, apiSecret: String, attemptTimeout: Duration = .milliseconds(1_500), answerMargin: Duration = .milliseconds(250),
        maximumBodySize: Int = 1 << 20, metricsFactory: (any MetricsFactory)? = nil, logger: Logger = Logger(label: "chatbotkit.before_send")
    ) {
        self.apiKey = apiKey
        signingKey = WebhookDelivery.signingKey(apiSecret)
        timeout = Locked(attemptTimeout)
        self.answerMargin = answerMargin
        self.maximumBodySize = maximumBodySize
        self.logger = logger
        followUps = BeforeSendFollowUps(logger: logger)
        let factory = metricsFactory ?? MetricsSystem.factory
        outcomes = Dictionary(
            uniqueKeysWithValues: Self.outcomes.map { ($0, Counter(label: "chatbotkit_before_send_total", dimensions: [("outcome", $0)], factory: factory)) })
    }

    /// How long the service waits for an answer (the app's `before_message_send_hook_attempt_timeout_ms`).
    public var attemptTimeout: Duration {
        get { timeout.withLock { $0 } }
        set { timeout.withLock { $0 = newValue } }
    }

    /// Has `bot`'s before-send handlers judge messages from now on, acting through `client`
    /// (a client of the bot's user), in place of what it registered before.
    public func register(_ bot: Bot, client: ChatClient) {
        registrations.withLock { $0[bot.name] = Registration(bot: bot, client: client) }
    }

    /// Stops asking the bot named `name`.
    public func unregister(bot name: String) {
        _ = registrations.withLock { $0.removeValue(forKey: name) }
    }

    /// Asks the bots `runner` runs at the time of each request, with their own clients, besides
    /// those registered: bots it starts are asked, bots it stops no longer are.
    public func follow(_ runner: BotRunner) { self.runner.withLock { $0 = runner } }

    /// The names of the bots asked now, in the order they are asked.
    public var botNames: [String] { judges().map(\.bot.name) }

    /// The bots asked, by name: the runner's first, then those registered.
    private func judges() -> [Registration] {
        var found: [String: Registration] = registrations.withLock { $0 }
        for service in runner.withLock({ $0 })?.services ?? [] where service.bot.judgesBeforeSending {
            found[service.bot.name] = Registration(bot: service.bot, client: service.client)
        }
        return found.values.filter { $0.bot.judgesBeforeSending }.sorted { $0.bot.name < $1.bot.name }
    }

    /// Checks and answers one request that arrived at `receivedAt`: 401/413/415/400 for one that
    /// is not the service's (with the ``WebhookError`` code), 503 while no bot judges messages
    /// (the service lets the message through), otherwise 200 with the bots' decision.
    public func receive(body: Data, headers: [String: String], receivedAt: ContinuousClock.Instant = .now) async -> Answer {
        let request: BeforeSendRequest
        do throws(WebhookError) {
            let json = try WebhookDelivery.verifiedJSON(body: body, headers: headers, apiKey: apiKey, signingKey: signingKey, maximumSize: maximumBodySize)
            do throws(JSONError) {
                request = try BeforeSendRequest(jsonData: json)
            } catch {
                throw WebhookError(code: .notABeforeSendRequest, message: "the body is not a before-send request: \(error)")
            }
        } catch {
            outcomes["refused"]?.increment()
            logger.warning("Refused a before-send request: \(error.message)", metadata: ["code": "\(error.code)"])
            return Answer(status: error.httpStatus, body: error.jsonBody)
        }
        let judges = judges()
        guard !judges.isEmpty else {
            outcomes["no_bot"]?.increment()
            let refusal = WebhookError(code: .noBot, message: "no bot judges messages before they are sent yet; the service lets this one through")
            return Answer(status: 503, body: refusal.jsonBody)
        }
        let deadline = receivedAt + attemptTimeout - answerMargin
        let work = Locked<[BeforeSendFollowUps.Work]>([])
        let decided: BeforeSendDecision?
        do {
            decided = try await withDeadline(max(deadline - .now, .zero)) { [logger] in
                try await Self.decide(request, by: judges, deadline: deadline, logger: logger) { job in work.withLock { $0.append(job) } }
            } onTimeout: {
                nil
            }
        } catch {
            outcomes["failed"]?.increment()
            logger.error("A before-send handler failed: \(error); the message goes through as sent")
            return Self.answer(.pass)
        }
        guard let decision = decided else {
            outcomes["timed_out"]?.increment()
            logger.warning(
                "The bots did not judge a message within \(attemptTimeout - answerMargin); it goes through as sent, as the service would let it, and the handlers were cancelled",
                metadata: ["user": "\(request.user?.id ?? "-")", "channel": "\(request.channel?.rawValue ?? "-")"])
            return Self.answer(.pass)
        }
        // Only a decision that is answered has its follow-up work done.
        for job in work.withLock({ $0 }) { followUps.add(job) }
        outcomes[Self.outcome(decision)]?.increment()
        return Self.answer(decision)
    }

    /// Runs the bots' handlers in turn, each on the message as the one before left it; the
    /// first refusal ends the run. A bot never judges its own messages.
    private static func decide(
        _ request: BeforeSendRequest, by judges: [Registration], deadline: ContinuousClock.Instant, logger: Logger,
        followUp: @escaping @Sendable (@escaping BeforeSendFollowUps.Work) -> Void
    ) async throws -> BeforeSendDecision {
        var message = request.message
        var replaced: JSONObject = [:]
        for judge in judges where request.user?.id != judge.bot.user.id {
            var botLogger = logger
            botLogger[metadataKey: "bot"] = "\(judge.bot.name)"
            let context = BeforeSendContext(
                user: request.user, channel: request.channel, channelJSON: request.channelJSON, requestInfo: request.requestInfo,
                messageJSON: request.messageJSON, deadline: deadline, bot: judge.bot, client: judge.client, logger: botLogger, followUps: followUp)
            for handler in judge.bot.beforeSendHandlers {
                try Task.checkCancellation()
                let decision = try await handler(message, context)
                switch decision.kind {
                case .pass: continue
                case .reject: return decision
                case .replace:
                    for (key, value) in decision.fields { replaced[key] = value }
                    message = Self.applying(decision.fields, to: message)
                }
            }
        }
        return replaced.isEmpty ? .pass : BeforeSendDecision(kind: .replace, fields: replaced)
    }

    /// `message` with a replacement's fields, for the next handler to see.
    private static func applying(_ fields: JSONObject, to message: Message) -> Message {
        guard case .object(var json) = message.json else { return message }
        for (key, value) in fields { json[key] = value }
        return (try? Message(jsonData: JSONWriter.data(.object(json)))) ?? message
    }

    private static func outcome(_ decision: BeforeSendDecision) -> String {
        switch decision.kind {
        case .pass: "pass"
        case .replace: "replace"
        case .reject: "reject"
        }
    }

    /// The body the service reads: `{}` lets the message through (the page asks for a message
    /// only "if you intend to make any change"), `{"message": {…}}` replaces its rewritable
    /// fields, `{"message": {"type": "error", "text": …}}` refuses it.
    static func answer(_ decision: BeforeSendDecision) -> Answer {
        switch decision.kind {
        case .pass:
            return Answer(status: 200, body: Data("{}".utf8))
        case .replace:
            return Answer(status: 200, body: JSONWriter.data(.object(["message": .object(decision.fields)])))
        case .reject:
            let text = decision.fields["text"] ?? .string("This message was refused.")
            return Answer(status: 200, body: JSONWriter.data(.object(["message": .object(["type": "error", "text": text])])))
        }
    }

    /// Runs the work handlers left for after their answers, until a graceful shutdown (and then
    /// what was queued). ``WebhookServer`` runs it; an intake of your own route runs it itself.
    public func runFollowUps() async { await followUps.run() }
}
