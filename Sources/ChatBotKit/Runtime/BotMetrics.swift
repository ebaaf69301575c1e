import ChatModels
import CoreMetrics
import Metrics

/// What a bot reports through swift-metrics, to its client's factory (``ChatClient/metricsFactory``),
/// with the bot's name as a dimension: deliveries taken and skipped, attachments by type,
/// decoding failures, handler errors, handling time, and its queue and running handlers.
struct BotMetrics: Sendable {
    /// The bot's name.
    let bot: String
    /// Where the metrics go.
    let factory: any MetricsFactory

    /// A delivery taken for handling (`message`, `edit`, `deletion` or `truncation`).
    func accepted(_ trigger: String) {
        Counter(label: "chatbotkit_bot_deliveries_total", dimensions: [("bot", bot), ("trigger", trigger)], factory: factory).increment()
        queued.increment()
    }

    /// A delivery skipped because it was handled before (a reconnect or `/sync` brought it again).
    func redelivered() {
        Counter(label: "chatbotkit_bot_redeliveries_total", dimensions: [("bot", bot)], factory: factory).increment()
    }

    /// The attachments of a new message, by type as ``Message/attachmentCounts`` classifies them.
    func received(_ counts: [AttachmentType: Int]) {
        for (type, count) in counts {
            Counter(label: "chatbotkit_bot_attachments_total", dimensions: [("bot", bot), ("type", type.rawValue)], factory: factory)
                .increment(by: count)
        }
    }

    /// An attachment whose JSON did not fit its registered payload type.
    func decodingFailed(_ type: AttachmentType) {
        Counter(label: "chatbotkit_bot_decoding_failures_total", dimensions: [("bot", bot), ("type", type.rawValue)], factory: factory)
            .increment()
    }

    /// A handler or middleware that threw.
    func handlerFailed() {
        Counter(label: "chatbotkit_bot_handler_errors_total", dimensions: [("bot", bot)], factory: factory).increment()
    }

    /// A delivery's handling begins: it leaves the queue.
    func started() {
        queued.decrement()
        running.increment()
    }

    /// A delivery's handling ended, every route of it, after `duration`.
    func finished(_ trigger: String, after duration: Duration) {
        running.decrement()
        Timer(label: "chatbotkit_bot_handling_duration_seconds", dimensions: [("bot", bot), ("trigger", trigger)], factory: factory)
            .record(duration: duration)
    }

    private var queued: Meter { Meter(label: "chatbotkit_bot_queued_deliveries", dimensions: [("bot", bot)], factory: factory) }
    private var running: Meter { Meter(label: "chatbotkit_bot_running_handlers", dimensions: [("bot", bot)], factory: factory) }
}

extension Delivery {
    /// How metrics name what it is.
    var metricsTrigger: String {
        switch work {
        case .truncation: "truncation"
        case .message(.newMessage, _): "message"
        case .message(.edit, _): "edit"
        case .message(.deletion, _): "deletion"
        }
    }
}
