import ChatClient
import ChatLocking
import ChatModels
import Foundation
import Logging

/// What a bot does of its own accord once it is ready: its schedules' runs, telling people whose
/// conversation timed out, and, once, handling the reminders that came due while it was stopped.
/// Each is queued through the ``DeliveryPipeline`` in its channel, in order with the channel's
/// messages, and only in the channels this node handles.
final class TimedWork: Sendable {
    /// The bot, whose schedules, conversations and reminders these are.
    let bot: Bot
    /// Its client, for its reminders.
    let client: ChatClient
    /// Its logger.
    let logger: Logger
    /// Where the work is queued; each channel's worker is started in the task group of the loop
    /// that queued it, so that cancelling the timed work cancels them.
    let pipeline: DeliveryPipeline
    /// The channels this node handles.
    let channels: @Sendable () -> [ChannelId]
    /// Set once the bot drains: no scheduled run or conversation timeout is queued any more.
    private let stopped = Locked(false)
    /// When the bot was last known running, from its checkpoint: the runs its schedules missed
    /// since are made up once it is ready (the last of each), and its reminders due since handled.
    private let resumedFrom = Locked<Date?>(nil)

    /// Timed work of `pipeline`'s bot, in the `channels` this node handles.
    init(pipeline: DeliveryPipeline, channels: @escaping @Sendable () -> [ChannelId]) {
        bot = pipeline.bot
        client = pipeline.client
        logger = pipeline.logger
        self.pipeline = pipeline
        self.channels = channels
    }

    /// Makes up what fell due since `date`, when the bot was last known running (its checkpoint
    /// says); call it before ``run(after:)``.
    func resume(from date: Date) {
        resumedFrom.withLock { $0 = date }
    }

    /// When the bot was last known running, if its checkpoint said.
    var resumeDate: Date? { resumedFrom.withLock { $0 } }

    /// Queues nothing more (the bot drains); the loops go on until cancelled.
    func stop() {
        stopped.withLock { $0 = true }
    }

    /// Whether the bot drains.
    var isStopped: Bool { stopped.withLock { $0 } }

    /// Runs the timed work once `readiness` says the bot is ready, until cancelled (the workers
    /// are cancelled once the bot has drained).
    func run(after readiness: BotReadiness) async {
        // Polled: waiting on readiness itself would not end when the bot stops before it is ready.
        while !readiness.isReady {
            guard !Task.isCancelled else { return }
            try? await Task.sleep(for: .milliseconds(20))
        }
        async let schedules: Void = runSchedules()
        async let timeouts: Void = sayConversationTimeouts()
        async let reminders: Void = makeUpMissedReminders()
        async let deadLetters: Void = runDeadLettersAskedFor()
        _ = await (schedules, timeouts, reminders, deadLetters)
    }
}
