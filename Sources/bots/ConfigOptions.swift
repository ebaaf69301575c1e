import ArgumentParser
import ChatBotKit
import ChatClient
import ChatModels
import Foundation

/// `--config`, shared by the commands that talk to the configured server.
struct ConfigOptions: ParsableArguments {
    @Option(help: "The configuration file.")
    var config: String = "bots.yaml"

    @Option(help: "The server's base URL (default: server.url, else the embedded server's address).")
    var server: String?

    /// The configuration, or a located error printed the way editors understand.
    func load() throws -> BotsConfiguration {
        do {
            return try BotsConfiguration.load(contentsOf: config)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// A client acting as `userId` on the configured server.
    func client(as userId: String) throws -> (ChatClient, BotsConfiguration) {
        let configuration = try load()
        let base =
            server.flatMap(URL.init(string:)) ?? configuration.server.url
            ?? URL(string: "http://\(configuration.embedded.host):\(configuration.embedded.port)")!
        let client = ChatClient(
            configuration: ChatClientConfiguration(
                apiKey: configuration.server.apiKey, baseURL: base, credentials: .apiSecret(configuration.server.apiSecret.value),
                userId: userId))
        return (client, configuration)
    }
}

extension ChannelId: ExpressibleByArgument {
    /// Parses `type:id` from the command line.
    public init?(argument: String) {
        guard let cid = try? ChannelId(cid: argument) else { return nil }
        self = cid
    }
}
