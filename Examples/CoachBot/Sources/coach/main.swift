import BotsCLI
import CoachBot

// The command line tool (run, serve, send, simulate, doctor, …) for bots.yaml files that
// name `kind: coach`, with a subcommand of its own: `coach cheer`.
await BotsCLI.main(kinds: [Coach.self], commands: [Cheer.self])
