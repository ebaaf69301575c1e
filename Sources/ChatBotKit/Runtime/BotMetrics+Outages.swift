import CoreMetrics
import Metrics

extension BotMetrics {
    /// A delivery whose handlers failed on a transient error, run again after backoff.
    static func handlerRetried(bot: String, factory: any MetricsFactory) {
        Counter(label: "chatbotkit_handler_retries_total", dimensions: [("bot", bot)], factory: factory).increment()
    }

    /// A delivery given up and written to the dead letters, and why (a ``DeadLetter/Reason``).
    static func deadLettered(bot: String, reason: DeadLetter.Reason, factory: any MetricsFactory) {
        Counter(label: "chatbotkit_dead_letters_total", dimensions: [("bot", bot), ("reason", reason.rawValue)], factory: factory).increment()
    }
}
