import ArgumentParser
import ChatClient
import ChatModels
import Foundation

/// `bots react MESSAGE TYPE`: react to a message as a user (or take the reaction off), and
/// print what the channel's bots answer, as `send` does; for trying a bot's reaction handlers.
struct ReactCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "react", abstract: "React to a message as a user (or take the reaction off), and show the bots' answers.")

    @OptionGroup var options: ConfigOptions

    @Argument(help: "The message's id (`send` prints it).")
    var message: String

    @Argument(help: "The reaction type, such as like or remove.")
    var type: String

    @Option(help: "The user who reacts (created if needed, and made a member of the message's channel).")
    var user: String = "alice"

    @Flag(help: "Take the user's reaction of this type off instead.")
    var remove = false

    @Option(help: "Seconds to wait for replies from the channel's bots (0: do not wait).")
    var waitForReplies: Double = 3

    func run() async throws {
        guard (1...30).contains(type.count) else { throw ValidationError("a reaction type has 1 to 30 characters") }
        let (client, configuration) = try options.client(as: user)
        try await options.reaching(configuration) { try await client.upsertUsers([User(id: user, name: user.capitalized)]) }
        let target: Message
        do {
            target = try await client.getMessage(message)
        } catch let error as ChatClientError where error.httpStatus == 404 {
            throw ValidationError("no message \(message) on the server; `send` prints the id of what it posts")
        }
        guard let channel = target.cid else { throw ValidationError("message \(message) has no channel") }
        try await client.join(channel, as: user)
        // The bots' answers are the channel's messages newer than its newest one now (server time).
        let newest = try await client.queryChannel(channel, messageLimit: 1).messages.last?.createdAt
        if remove {
            try await client.deleteReaction(type, from: message, as: user)
            say("Took \(type) off \(message) in \(channel.rawValue) as \(user)")
        } else {
            try await client.sendReaction(type, to: message, as: user)
            say("Reacted \(type) to \(message) in \(channel.rawValue) as \(user)")
        }
        try await RepliesWatch.show(in: channel, after: newest, from: client, notBy: user, for: waitForReplies)
    }
}
