// A tool's own subcommands (`BotsCLI.main(kinds:commands:)`) are ArgumentParser commands that
// read bots.yaml and talk to the server, so `import BotsCLI` alone is enough to write one:
// ArgumentParser, and ChatBotKit with the wire model and the client, come with it.
@_exported import ArgumentParser
@_exported import ChatBotKit
