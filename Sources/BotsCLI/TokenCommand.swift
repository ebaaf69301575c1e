import ChatBotKitConfiguration
import ArgumentParser
import ChatBotKit
import ChatClient
import Foundation

/// `bots token --user alice`: a user token signed with the configured secret.
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "token", abstract: "Print a user token for the configured app.")

    @OptionGroup var options: ConfigOptions

    @Option(help: "The user the token is for.")
    var user: String

    @Option(help: "Seconds until the token expires (default: never).")
    var expiresIn: Double?

    func run() throws {
        let configuration = try options.load()
        let signer = TokenSigner(secret: configuration.server.apiSecret.value)
        say(signer.userToken(for: user, expiresAt: expiresIn.map { Date().addingTimeInterval($0) }))
    }
}
