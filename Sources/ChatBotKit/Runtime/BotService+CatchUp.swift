import Foundation

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
        /// Where the deliveries the bot gave up on are kept (``DeadLetterFile``).
        public var deadLetterFile: URL

        /// Keeps the checkpoint at `checkpointFile`, saved every second, and catches up on at
        /// most the last day; dead letters go to `deadLetterFile`, by default
        /// `dead-letters/<name>.jsonl` beside the checkpoint's folder.
        public init(
            checkpointFile: URL, maximumAge: Duration = .seconds(86_400), saveInterval: Duration = .seconds(1), deadLetterFile: URL? = nil
        ) {
            self.checkpointFile = checkpointFile
            self.maximumAge = maximumAge
            self.saveInterval = saveInterval
            self.deadLetterFile =
                deadLetterFile
                ?? checkpointFile.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("dead-letters")
                .appendingPathComponent(checkpointFile.deletingPathExtension().lastPathComponent + ".jsonl")
        }
    }
}
