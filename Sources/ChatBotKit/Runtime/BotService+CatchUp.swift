import ChatClient
import ChatLocking
import ChatModels
import Foundation
import Logging

extension BotService {
    /// Catching up after a restart: the bot keeps a ``BotCheckpoint`` of how far it has handled
    /// its channels, and when it starts again it gets what happened since through `/sync`, as
    /// after a reconnect, so the messages, edits and deletions sent while it was stopped are
    /// handled, and none twice.
    ///
    /// A graceful stop saves the checkpoint once the handlers have finished; a crash loses at
    /// most the last `saveInterval`, whose deliveries are then handled again. A delivery whose
    /// handler was cut off (the drain deadline) counts as not handled.
    public struct CatchUp: Sendable {
        /// Where the checkpoint is kept (a JSON file; its folder is created).
        public var checkpointFile: URL
        /// How far back a restart goes at most: a bot stopped for longer handles only this last
        /// stretch (the hosted service syncs at most 2,000 events of a channel anyway).
        public var maximumAge: Duration
        /// How often the checkpoint is saved while things change.
        public var saveInterval: Duration

        /// Keeps the checkpoint at `checkpointFile`, saved every second, and catches up on at
        /// most the last day.
        public init(checkpointFile: URL, maximumAge: Duration = .seconds(86_400), saveInterval: Duration = .seconds(1)) {
            self.checkpointFile = checkpointFile
            self.maximumAge = maximumAge
            self.saveInterval = saveInterval
        }
    }

    /// Reads the checkpoint and returns where to catch up from (nil: from now), having taken in
    /// what it says was handled. A checkpoint that cannot be read is moved aside (kept, as
    /// `<file>.unreadable`) and the bot starts from now.
    func resumeFromCheckpoint(_ catchUp: CatchUp) -> Date? {
        let checkpoint: BotCheckpoint?
        do {
            checkpoint = try BotCheckpoint.load(from: catchUp.checkpointFile)
        } catch {
            let aside = StateFile.setAside(catchUp.checkpointFile)
            logger.error(
                "Bot \(bot.name) does not catch up on what it missed: \(error.message)\(aside.map { "; it is kept as \($0.lastPathComponent)" } ?? "")")
            return nil
        }
        guard let checkpoint else {
            logger.info("Bot \(bot.name) has no checkpoint yet (\(catchUp.checkpointFile.path)); it handles what comes from now on")
            return nil
        }
        let now = Date()
        let reachable = now.addingTimeInterval(-catchUp.maximumAge.timeInterval)
        var since = HandledProgress.syncStart(of: checkpoint)
        if since < reachable {
            // A bot that was running saved at least every minute; one saved long ago was stopped
            // then, and what came before `reachable` is given up. (Otherwise its channels were
            // just quiet, and nothing is lost.)
            if checkpoint.savedAt < reachable {
                let age = DurationText.format(catchUp.maximumAge)
                logger.warning(
                    "Bot \(bot.name) saved its checkpoint at \(RFC3339.string(from: checkpoint.savedAt)), more than \(age) ago; it catches up on the last \(age) only"
                )
            }
            since = reachable
        }
        progress.withLock { $0 = HandledProgress(resumingFrom: checkpoint, since: since) }
        // The checkpoint was saved at least every minute while the bot ran (this machine's clock).
        schedulesResumeFrom.withLock { $0 = max(checkpoint.savedAt, reachable) }
        handled.withLock { handled in
            for key in checkpoint.recentlyHandled { handled.insert(key) }
        }
        logger.info(
            "Bot \(bot.name) catches up on what it missed since \(RFC3339.string(from: checkpoint.handledThrough))",
            metadata: ["since": "\(RFC3339.string(from: since))"])
        return since
    }

    /// Saves the checkpoint when something changed since the last save, when the last save is
    /// a minute old (its `savedAt` then says the bot was running, even in quiet channels), or
    /// `always`; a failure is logged (once until a save works again) and the bot goes on.
    func saveCheckpoint(_ catchUp: CatchUp, always: Bool = false) {
        let now = ContinuousClock.now
        let due = always || checkpointSaving.withLock { $0.lastSaved.map { now - $0 >= .seconds(60) } ?? true }
        guard let checkpoint = progress.withLock({ $0.hasChanges || due ? $0.checkpoint(bot: bot.name) : nil }) else { return }
        do {
            try checkpoint.save(to: catchUp.checkpointFile)
            checkpointSaving.withLock { $0 = CheckpointSaving(lastSaved: now, isFailing: false) }
        } catch {
            let wasFailing = checkpointSaving.withLock { saving in
                defer { saving.isFailing = true }
                return saving.isFailing
            }
            if !wasFailing {
                logger.warning("Bot \(bot.name) cannot save its checkpoint: \(FileErrorText.describe(error)); a restart may handle messages again")
            }
        }
    }

    /// Saves the checkpoint every `saveInterval` until cancelled.
    func saveCheckpoints(_ catchUp: CatchUp) async {
        while (try? await Task.sleep(for: catchUp.saveInterval)) != nil {
            saveCheckpoint(catchUp)
        }
    }
}

/// When a bot last saved its checkpoint, and whether saving fails (said once).
struct CheckpointSaving: Sendable {
    var lastSaved: ContinuousClock.Instant?
    var isFailing = false
}
