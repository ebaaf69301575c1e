import ChatClient
import ChatModels
import Foundation
import Logging

extension DeliveryPipeline {
    /// Runs a delivery's handlers until they settle. A run that met a transient failure (the
    /// service unreachable, failing or busy, past what the client's own retries waited out)
    /// runs again after capped, jittered backoff, in the channel's worker: the channel's later
    /// deliveries wait behind it, as order per channel is promised, while other channels go on,
    /// and the checkpoint keeps the delivery unhandled. Once the failures are final (not
    /// transient, or transient past the client's `outageTolerance`), `onError` hears of each,
    /// with the number of runs, the delivery goes to the dead letters, and the channel goes on.
    /// A cancelled run (the drain deadline at shutdown) settles nothing: the next start runs it.
    func settle(_ delivery: Delivery, in cid: ChannelId) async {
        let firstRun = ContinuousClock.now
        let tolerance = client.configuration.outageTolerance
        var number = 1
        while true {
            let attempt = DeliveryAttempt(number: number)
            await DeliveryAttempt.$current.withValue(attempt) { await handle(delivery, in: cid) }
            let failures = attempt.failures
            guard !failures.isEmpty, !Task.isCancelled else { return }
            let elapsed = ContinuousClock.now - firstRun
            if failures.contains(where: { DeliveryAttempt.isTransient($0.error) }), elapsed < tolerance {
                let wait = min(Self.backoff(run: number), tolerance - elapsed)
                BotMetrics.handlerRetried(bot: bot.name, factory: client.metricsFactory)
                logger.warning(
                    "A handler of bot \(bot.name) failed on a transient error; it runs again in \(String(format: "%.1f", wait.timeInterval)) s",
                    metadata: ["cid": "\(cid)", "key": "\(delivery.key)", "run": "\(number)", "error": "\(failures[0].error.message)"])
                guard (try? await Task.sleep(for: wait)) != nil else { return }
                number += 1
                continue
            }
            return await giveUp(delivery, in: cid, failures: failures, runs: number)
        }
    }

    /// Tells `onError` of each failure and keeps the delivery as a dead letter.
    private func giveUp(_ delivery: Delivery, in cid: ChannelId, failures: [DeliveryAttempt.Failure], runs: Int) async {
        for failure in failures where !failure.isTold {
            await bot.tell(failure.error.after(attempts: runs), in: failure.channel, logger: failure.logger, context: failure.context, routes: failure.routes)
        }
        let reason = DeadLetter.reason(for: failures.map(\.error))
        BotMetrics.deadLettered(bot: bot.name, reason: reason, factory: client.metricsFactory)
        guard let deadLetters else { return }
        var message: Message?
        if case .message(_, let handled) = delivery.work { message = handled }
        let letter = DeadLetter(
            key: delivery.key, bot: bot.name, cid: cid.rawValue, trigger: delivery.metricsTrigger, message: message,
            error: failures.map(\.error.message).joined(separator: "\n"), reason: reason, attempts: runs)
        do {
            try deadLetters.append(letter)
            let runsText = "\(runs) run\(runs == 1 ? "" : "s")"
            logger.warning(
                "Bot \(bot.name) gave up on \(delivery.metricsTrigger) \(delivery.key) after \(runsText) (\(reason)); it is kept in \(deadLetters.file.path): `bots dead-letters retry` runs it again",
                metadata: ["cid": "\(cid)"])
        } catch {
            logger.error("Bot \(bot.name) could not keep dead letter \(delivery.key) in \(deadLetters.file.path): \(error)")
        }
    }

    /// Queues dead letters asked to run again (`bots dead-letters retry`): new messages only,
    /// each in its channel, whatever ran before (replies keep their ids, so none is doubled).
    func queueRetries(_ letters: [DeadLetter], workers: inout DiscardingTaskGroup) async {
        for letter in letters {
            guard letter.trigger == "message", let message = letter.message, let cid = try? ChannelId(cid: letter.cid) else {
                logger.warning("Bot \(bot.name) runs only new messages again; dead letter \(letter.key) is a \(letter.trigger) and was dropped")
                continue
            }
            logger.notice("Bot \(bot.name) runs dead letter \(letter.key) again", metadata: ["cid": "\(cid)"])
            let delivery = Delivery(.newMessage, message)
            for observer in observers { observer.queuedOwn(delivery, in: cid) }
            if mailboxes.enqueue(delivery, in: cid) { await startWorker(cid, workers: &workers) }
        }
    }

    /// Exponential with full jitter: up to 0.5 s, 1 s, 2 s, ... (at most 30 s: a handler's own
    /// calls already waited out the short outages).
    static func backoff(run: Int) -> Duration {
        let ceiling = min(30, 0.5 * pow(2, Double(min(run, 16) - 1)))
        return .milliseconds(Int64(Double.random(in: ceiling / 2...ceiling) * 1000))
    }
}
