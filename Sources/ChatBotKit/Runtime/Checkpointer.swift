import ChatClient
import ChatLocking
import ChatModels
import Foundation
import Logging

/// Keeps a bot's ``BotCheckpoint`` (``BotService/CatchUp``): follows how far the bot has
/// handled its channels as the pipeline tells it (``DeliveryObserver``), saves it every
/// `saveInterval` while things change, and reads it back at start to say where to catch up from.
final class Checkpointer: DeliveryObserver {
    /// Where a restarted bot goes on from, as its checkpoint says.
    struct Resumption: Sendable {
        /// Where to catch up from (`/sync`).
        let since: Date
        /// When the bot was last known running: its schedules' runs and reminders due since were missed.
        let lastRunning: Date
        /// The deliveries handled around ``since``, which are not handled again.
        let recentlyHandled: [String]
    }

    /// Where and how often.
    let catchUp: BotService.CatchUp
    private let bot: String
    private let logger: Logger
    /// How far the bot has handled.
    private let progress = Locked(HandledProgress())
    /// When the checkpoint was last saved, and whether saving fails.
    private let saving = Locked(CheckpointSaving())

    /// A checkpointer for the bot named `bot`.
    init(_ catchUp: BotService.CatchUp, bot: String, logger: Logger) {
        self.catchUp = catchUp
        self.bot = bot
        self.logger = logger
    }

    /// Reads the checkpoint and returns where to go on from (nil: from now), having taken in
    /// what it says was handled. A checkpoint that cannot be read is moved aside (kept, as
    /// `<file>.unreadable`) and the bot starts from now.
    func resume(now: Date = Date()) -> Resumption? {
        let checkpoint: BotCheckpoint?
        do {
            checkpoint = try BotCheckpoint.load(from: catchUp.checkpointFile)
        } catch {
            let aside = StateFile.setAside(catchUp.checkpointFile)
            logger.error(
                "Bot \(bot) does not catch up on what it missed: \(error.message)\(aside.map { "; it is kept as \($0.lastPathComponent)" } ?? "")")
            return nil
        }
        guard let checkpoint else {
            logger.info("Bot \(bot) has no checkpoint yet (\(catchUp.checkpointFile.path)); it handles what comes from now on")
            return nil
        }
        let reachable = now.addingTimeInterval(-catchUp.maximumAge.timeInterval)
        var since = HandledProgress.syncStart(of: checkpoint)
        if since < reachable {
            // A bot that was running saved at least every minute; one saved long ago was stopped
            // then, and what came before `reachable` is given up. (Otherwise its channels were
            // just quiet, and nothing is lost.)
            if checkpoint.savedAt < reachable {
                let age = DurationText.format(catchUp.maximumAge)
                logger.warning(
                    "Bot \(bot) saved its checkpoint at \(RFC3339.string(from: checkpoint.savedAt)), more than \(age) ago; it catches up on the last \(age) only"
                )
            }
            since = reachable
        }
        progress.withLock { $0 = HandledProgress(resumingFrom: checkpoint, since: since) }
        logger.info(
            "Bot \(bot) catches up on what it missed since \(RFC3339.string(from: checkpoint.handledThrough))",
            metadata: ["since": "\(RFC3339.string(from: since))"])
        // The checkpoint was saved at least every minute while the bot ran (this machine's clock).
        return Resumption(since: since, lastRunning: max(checkpoint.savedAt, reachable), recentlyHandled: checkpoint.recentlyHandled)
    }

    /// The bot follows its channels from `date` on (see ``HandledProgress/following(since:)``);
    /// saved at once: a bot killed within its first save interval would otherwise leave no
    /// checkpoint, and its next start would skip what it had not handled yet.
    func following(since date: Date) {
        progress.withLock { $0.following(since: date) }
        save(always: true)
    }

    /// Saves the checkpoint when something changed since the last save, when the last save is
    /// a minute old at `now` (its `savedAt` then says the bot was running, even in quiet
    /// channels), or `always`; a failure is logged (once until a save works again) and the bot
    /// goes on.
    func save(always: Bool = false, now: ContinuousClock.Instant = .now) {
        let due = always || saving.withLock { $0.lastSaved.map { now - $0 >= .seconds(60) } ?? true }
        guard let checkpoint = progress.withLock({ $0.hasChanges || due ? $0.checkpoint(bot: bot) : nil }) else { return }
        do {
            try checkpoint.save(to: catchUp.checkpointFile)
            saving.withLock { $0 = CheckpointSaving(lastSaved: now, isFailing: false) }
        } catch {
            let wasFailing = saving.withLock { saving in
                defer { saving.isFailing = true }
                return saving.isFailing
            }
            if !wasFailing {
                logger.warning("Bot \(bot) cannot save its checkpoint: \(FileErrorText.describe(error)); a restart may handle messages again")
            }
        }
    }

    /// Saves the checkpoint every `saveInterval` until cancelled.
    func run() async {
        while (try? await Task.sleep(for: catchUp.saveInterval)) != nil {
            save()
        }
    }

    /// Follows how far the bot has handled: the event's time, and the delivery it became, if any.
    func took(_ event: Event, as delivery: Delivery?) {
        guard event.cid != nil, let eventAt = event.createdAt else { return }
        progress.withLock { progress in
            if let delivery { progress.accepted(delivery.key, eventAt: eventAt) } else { progress.saw(eventAt: eventAt) }
        }
    }

    /// An event left to another node still moves the bot on: none of it is left to handle here.
    func passed(_ event: Event) { took(event, as: nil) }

    /// Listed as handled once finished, so the next start does not make it again.
    func queuedOwn(_ delivery: Delivery, in cid: ChannelId) {
        progress.withLock { $0.acceptedOwn(delivery.key) }
    }

    /// Handled to the end.
    func finished(_ delivery: Delivery, in cid: ChannelId) {
        progress.withLock { $0.finished(delivery.key) }
    }
}

/// When a bot last saved its checkpoint, and whether saving fails (said once).
struct CheckpointSaving: Sendable {
    var lastSaved: ContinuousClock.Instant?
    var isFailing = false
}
