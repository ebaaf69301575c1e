import ChatBotKit
import ChatClient
import ChatModels
import Foundation

/// Where each bot keeps its state: its checkpoint, upload record and conversations.
extension BotsConfiguration {
    /// Where a bot keeps its checkpoint (what a restart catches up from): `checkpoints/<name>.json`
    /// in the folder that holds the embedded server's `data` (`.bots/checkpoints/` by default),
    /// inside `pathRoot` when one is given (see ``BotKindEnvironment/pathRoot``).
    public func checkpointFile(for entry: BotEntry, under pathRoot: URL? = nil) -> URL {
        stateFile("checkpoints", for: entry, under: pathRoot)
    }

    /// Where a bot with `reuse_uploads` keeps the links of its uploads between runs:
    /// `uploads/<name>.json` beside the checkpoints (`.bots/uploads/` by default).
    public func uploadRecordFile(for entry: BotEntry, under pathRoot: URL? = nil) -> URL {
        stateFile("uploads", for: entry, under: pathRoot)
    }

    /// Where a bot of `bots run` keeps its conversations under way between runs:
    /// `conversations/<name>.json` beside the checkpoints (`.bots/conversations/` by default).
    public func conversationsFile(for entry: BotEntry, under pathRoot: URL? = nil) -> URL {
        stateFile("conversations", for: entry, under: pathRoot)
    }

    /// Where a bot keeps the deliveries it gave up on (`bots dead-letters`):
    /// `dead-letters/<name>.jsonl` beside the checkpoints (`.bots/dead-letters/` by default).
    public func deadLetterFile(for entry: BotEntry, under pathRoot: URL? = nil) -> URL {
        stateFile("dead-letters", for: entry, under: pathRoot, extension: "jsonl")
    }

    /// `<folder>/<bot name>.json` in the folder that holds the embedded server's `data`.
    private func stateFile(_ folder: String, for entry: BotEntry, under pathRoot: URL?, extension: String = "json") -> URL {
        BotKindEnvironment.resolve(embedded.dataDirectory, under: pathRoot).deletingLastPathComponent()
            .appendingPathComponent(folder).appendingPathComponent("\(entry.name).\(`extension`)")
    }
}
