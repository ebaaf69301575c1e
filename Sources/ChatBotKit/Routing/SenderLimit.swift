import ChatClient
import ChatLocking
import ChatModels
import CoreMetrics
import Foundation
import Logging

/// Handles at most so many new messages from each sender (`sender_limit` in bots.yaml), so that
/// one user posting a flood of files cannot keep a bot's handlers, downloads and uploads to
/// themselves. A sender over the limit has the message skipped, and is told so once per period.
///
/// The limit is a token bucket per sender: a burst of `rate.count` messages, then one every
/// `period / count`. It is measured on the messages' own `created_at`, so a bot catching up on
/// what was posted while it was stopped judges each sender by how fast they posted, not by how
/// fast the backlog arrives. Edits, deletions and reactions are not limited. Each node of a scaled-out bot
/// limits the channels it handles; a rebuilt bot (a reconfiguration) starts with full buckets.
///
/// ```swift
/// bot.use(SenderLimit(.init(rate: .init("20/min")!, exempt: ["workout-bot"])))
/// ```
public final class SenderLimit: BotMiddleware {
    /// What the limit is.
    public struct Rule: Sendable, Hashable {
        /// How many new messages of one sender are handled per period.
        public var rate: RateBudget.Rate
        /// Whether a sender over the limit is told, once per period, that messages are skipped.
        public var notifies: Bool
        /// Users never limited (other bots, admins).
        public var exempt: Set<String>

        /// A rule of `rate` per sender.
        public init(rate: RateBudget.Rate, notifies: Bool = true, exempt: Set<String> = []) {
            self.rate = rate
            self.notifies = notifies
            self.exempt = exempt
        }
    }

    /// What happens to one message.
    package enum Verdict: Equatable, Sendable {
        /// It is handled.
        case handle
        /// It is skipped; `notify` when the sender is to be told (the first skip of a period),
        /// and `retryAfter` until the sender's next message would be handled.
        case skip(notify: Bool, retryAfter: Duration)
    }

    /// One sender's bucket: tokens left as of `at`, and when the sender was last told.
    private struct Bucket {
        var tokens: Double
        var at: Date
        var noticedAt: Date?
    }

    private struct Senders {
        var buckets: [String: Bucket] = [:]
        var admittedSinceSweep = 0
    }

    /// The rule it keeps.
    public let rule: Rule
    private let senders = Locked(Senders())
    private let skipped = Locked<Counter?>(nil)
    private let perSecond: Double
    private let periodSeconds: Double

    /// Buckets are swept of senders whose bucket is full again after this many messages.
    private static let sweepInterval = 1024

    /// A limit of `rule`.
    public init(_ rule: Rule) {
        self.rule = rule
        periodSeconds = rule.rate.period.timeInterval
        perSecond = Double(rule.rate.count) / periodSeconds
    }

    /// Skips a new message of a sender over the limit; everything else goes on.
    public func handle(_ message: Message, context: BotContext, next: @Sendable (Message, BotContext) async throws -> Void) async throws {
        guard context.trigger == .newMessage, let sender = message.user?.id, !rule.exempt.contains(sender) else {
            return try await next(message, context)
        }
        switch admit(sender, at: message.createdAt ?? Date()) {
        case .handle:
            try await next(message, context)
        case .skip(let notify, let retryAfter):
            context.logger.info(
                "skipped a message of \(sender): over the sender limit of \(rule.rate)", metadata: ["sender": "\(sender)"])
            skippedCounter(context).increment()
            if notify { try await context.reply(text: notice(to: sender, retryAfter: retryAfter)) }
        }
    }

    /// Takes one of `sender`'s tokens for a message sent at `time`, if there is one.
    package func admit(_ sender: String, at time: Date) -> Verdict {
        senders.withLock { state in
            state.admittedSinceSweep += 1
            if state.admittedSinceSweep >= Self.sweepInterval {
                state.admittedSinceSweep = 0
                let period = periodSeconds
                state.buckets = state.buckets.filter { time.timeIntervalSince($0.value.at) < period }
            }
            let capacity = Double(rule.rate.count)
            var bucket = state.buckets[sender] ?? Bucket(tokens: capacity, at: time)
            let elapsed = time.timeIntervalSince(bucket.at)
            // A message older than the last one seen (out of order) gives no tokens back.
            if elapsed > 0 {
                bucket.tokens = min(capacity, bucket.tokens + elapsed * perSecond)
                bucket.at = time
            }
            // The tolerance keeps a bucket refilled by exactly one period's share from
            // missing its token by a rounding error.
            if bucket.tokens >= 1 - 1e-9 {
                bucket.tokens = max(0, bucket.tokens - 1)
                state.buckets[sender] = bucket
                return .handle
            }
            let notify = rule.notifies && (bucket.noticedAt.map { time.timeIntervalSince($0) >= periodSeconds } ?? true)
            if notify { bucket.noticedAt = time }
            state.buckets[sender] = bucket
            return .skip(notify: notify, retryAfter: .milliseconds(Int(((1 - bucket.tokens) / perSecond * 1000).rounded())))
        }
    }

    /// How many senders it keeps a bucket for.
    package var trackedSenders: Int { senders.withLock { $0.buckets.count } }

    /// What the sender is told: the limit, and when to try again.
    package func notice(to sender: String, retryAfter: Duration) -> String {
        let wait = max(1, Int(retryAfter.timeInterval.rounded(.up)))
        let messages = rule.rate.count == 1 ? "1 message" : "\(rule.rate.count) messages"
        return "\(sender), I handle at most \(messages) \(Self.per(rule.rate.period)) from each sender, so I skipped this one. "
            + "Try again in \(DurationText.format(.seconds(wait)))."
    }

    /// `a minute`, or `every 15s` when the period is no single unit.
    static func per(_ period: Duration) -> String {
        switch period {
        case .seconds(1): "a second"
        case .seconds(60): "a minute"
        case .seconds(3600): "an hour"
        case .seconds(86_400): "a day"
        default: "every \(DurationText.format(period))"
        }
    }

    /// `chatbotkit_bot_sender_limited_total{bot}`, made on the first skip (its bot and metrics
    /// factory are known only from a context).
    private func skippedCounter(_ context: BotContext) -> Counter {
        skipped.withLock { counter in
            if let counter { return counter }
            let made = Counter(
                label: "chatbotkit_bot_sender_limited_total", dimensions: [("bot", context.bot.name)], factory: context.client.metricsFactory)
            counter = made
            return made
        }
    }
}
