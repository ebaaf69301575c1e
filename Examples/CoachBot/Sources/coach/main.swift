import BotsCLI
import CoachBot

// The command line tool (run, serve, send, simulate, doctor, …) for bots.yaml files that
// name `kind: coach`.
await BotsCLI.main(kinds: [Coach.self])
