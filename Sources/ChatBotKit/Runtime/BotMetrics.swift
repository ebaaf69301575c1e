import ChatClient
import ChatModels
import CoreMetrics
import Metrics

/// What a bot reports through swift-metrics, to its client's factory (``ChatClient/metricsFactory``),
/// with the bot's name as a dimension: deliveries taken and skipped, attachments by type,
/// handling time, and its queue and running handlers; decoding failures and handler errors
/// through the static functions, from the routing.
///
/// The handles of every delivery are made once: making them per delivery asks the backend to
/// look each metric up again, which cost a Prometheus-backed bot about a tenth of its throughput.
final class BotMetrics: Sendable {
    private let deliveries: [String: Counter]
    private let durations: [String: Timer]
    private let redeliveries: Counter
    private let queued: Meter
    private let running: Meter
    private let attachmentsByType: CountersByKey<AttachmentType>
    private let leased: Meter
    private let handOffs: [String: Counter]
    private let leftToOtherNodes: Counter

    /// What metrics name a delivery's kind.
    static let triggers = [
        "message", "edit", "deletion", "undeletion", "reaction", "reminder", "poll_vote", "poll_closed", "location", "truncation", "user_messages_deletion",
        "event", "addition", "schedule", "conversation_timeout",
    ]

    init(bot: String, factory: any MetricsFactory) {
        let dimensions = [("bot", bot)]
        deliveries = Dictionary(
            uniqueKeysWithValues: Self.triggers.map { trigger in
                (trigger, Counter(label: "chatbotkit_bot_deliveries_total", dimensions: dimensions + [("trigger", trigger)], factory: factory))
            })
        durations = Dictionary(
            uniqueKeysWithValues: Self.triggers.map { trigger in
                (
                    trigger,
                    Timer(label: "chatbotkit_bot_handling_duration_seconds", dimensions: dimensions + [("trigger", trigger)], factory: factory)
                )
            })
        redeliveries = Counter(label: "chatbotkit_bot_redeliveries_total", dimensions: dimensions, factory: factory)
        queued = Meter(label: "chatbotkit_bot_queued_deliveries", dimensions: dimensions, factory: factory)
        running = Meter(label: "chatbotkit_bot_running_handlers", dimensions: dimensions, factory: factory)
        attachmentsByType = CountersByKey(label: "chatbotkit_bot_attachments_total", dimensions: dimensions, keyDimension: "type", factory: factory)
        leased = Meter(label: "chatbotkit_bot_leased_channels", dimensions: dimensions, factory: factory)
        handOffs = Dictionary(
            uniqueKeysWithValues: ["taken", "released", "lost"].map { outcome in
                (outcome, Counter(label: "chatbotkit_bot_channel_handoffs_total", dimensions: dimensions + [("outcome", outcome)], factory: factory))
            })
        leftToOtherNodes = Counter(label: "chatbotkit_bot_events_left_to_other_nodes_total", dimensions: dimensions, factory: factory)
    }

    /// How many channels a scaled-out node holds the lease of.
    func leasedChannels(_ count: Int) { leased.set(count) }

    /// A channel's lease taken, released or lost by this node.
    func handedOff(_ outcome: String) { handOffs[outcome]?.increment() }

    /// An event of a channel another node handles.
    func leftToOtherNode() { leftToOtherNodes.increment() }

    /// A delivery taken for handling (one of ``triggers``).
    func accepted(_ trigger: String) {
        deliveries[trigger]?.increment()
        queued.increment()
    }

    /// A delivery skipped because it was handled before (a reconnect or `/sync` brought it again).
    func redelivered() { redeliveries.increment() }

    /// The attachments of a new message, by type as ``Message/attachmentCounts`` classifies them.
    func received(_ counts: [AttachmentType: Int]) {
        for (type, count) in counts { attachmentsByType.increment(type, by: count) }
    }

    /// A delivery's handling begins: it leaves the queue.
    func started() {
        queued.decrement()
        running.increment()
    }

    /// A delivery's handling ended, every route of it, after `duration`.
    func finished(_ trigger: String, after duration: Duration) {
        running.decrement()
        durations[trigger]?.record(duration: duration)
    }

    /// An attachment whose JSON did not fit its registered payload type.
    static func decodingFailed(_ type: AttachmentType, bot: String, factory: any MetricsFactory) {
        Counter(label: "chatbotkit_bot_decoding_failures_total", dimensions: [("bot", bot), ("type", type.rawValue)], factory: factory)
            .increment()
    }

    /// What became of a conversation: `started`, `answered`, `ended`, `cancelled`, `expired`,
    /// `unknown` (no handler for its type any more) or `unreadable` (its saved state no longer fits).
    static func conversation(_ event: String, name: String, bot: String, factory: any MetricsFactory) {
        Counter(
            label: "chatbotkit_bot_conversation_events_total", dimensions: [("bot", bot), ("conversation", name), ("event", event)],
            factory: factory
        ).increment()
    }

    /// A handler or middleware that threw.
    static func handlerFailed(bot: String, factory: any MetricsFactory) {
        Counter(label: "chatbotkit_bot_handler_errors_total", dimensions: [("bot", bot)], factory: factory).increment()
    }
}

extension Delivery {
    /// How metrics name what it is (one of ``BotMetrics/triggers``).
    var metricsTrigger: String {
        switch work {
        case .truncation: "truncation"
        case .userMessagesDeletion: "user_messages_deletion"
        case .event: "event"
        case .addition: "addition"
        case .schedule: "schedule"
        case .conversationTimeout: "conversation_timeout"
        case .message(.newMessage, _): "message"
        case .message(.edit, _): "edit"
        case .message(.deletion, _): "deletion"
        case .message(.undeletion, _): "undeletion"
        case .message(.reaction, _): "reaction"
        case .message(.reminderDue, _): "reminder"
        case .message(.pollVote, _): "poll_vote"
        case .message(.pollClosed, _): "poll_closed"
        case .message(.location, _): "location"
        }
    }
}
