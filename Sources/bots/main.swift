import ArchiveBot
import BotsCLI
import ModerationBot
import WorkoutBot

// The `bots` tool of this repository: the command line tool with the three example bot kinds.
await BotsCLI.main(kinds: [WorkoutBot.self, ModerationBot.self, ArchiveBot.self])
