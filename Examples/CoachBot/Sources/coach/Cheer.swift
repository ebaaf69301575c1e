import BotsCLI
import ChatBotKitConfiguration
import CoachBot

/// `coach cheer alice`: a coach bot of bots.yaml cheers a user on in its channel, as its
/// user, with the cheer bots.yaml gives it. A subcommand of the tool's own, beside the
/// built-in ones; `ConfigOptions` gives it `--config`, `--server` and a client.
struct Cheer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Cheer a user on, as a coach bot of bots.yaml.")

    @OptionGroup var options: ConfigOptions

    @Option(help: "The bot of bots.yaml that cheers.")
    var bot = "coach"

    @Option(help: "The channel, type:id (default: the bot's first).")
    var channel: ChannelId?

    @Argument(help: "Who to cheer on.")
    var user: String

    func run() async throws {
        let configuration = try options.load()
        guard let entry = configuration.bots.first(where: { $0.name == bot && $0.kind == Coach.name }) else {
            throw ValidationError("\(options.config) has no coach bot named \(bot)")
        }
        let text = "\(try Coach.cheer(of: entry)), \(user)!"
        let channel = self.channel ?? entry.channels[0]
        let client = options.client(as: entry.user, in: configuration)
        try await options.reaching(configuration) {
            try await client.sendMessage(OutgoingMessage(text: text), to: channel, as: entry.user)
        }
        print("\(entry.user) in \(channel): \(text)")
    }
}
