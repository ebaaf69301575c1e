import ArgumentParser
import ChatClient
import ChatModels
import Foundation

/// `bots events --channel messaging:general`: print a channel's events as they come.
struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "events", abstract: "Print a channel's events as they come (Ctrl-C stops).")

    @OptionGroup var options: ConfigOptions

    @Option(help: "The channel, type:id.")
    var channel: ChannelId = "messaging:general"

    @Option(help: "The user to connect as (made a member of the channel).")
    var user: String = "observer"

    @Flag(help: "Print each event's whole JSON, one per line and nothing else (a capture `bots replay` reads).")
    var json = false

    func run() async throws {
        let (client, configuration) = try options.client(as: user)
        try await options.reaching(configuration) { try await client.upsertUsers([User(id: user, name: user.capitalized)]) }
        try await client.join(channel, as: user)
        let connection = EventConnection(client: client, user: User(id: user))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await connection.run() }
            await connection.waitUntilConnected()
            try await connection.watch(channel)
            // With --json the output is a capture for `bots replay`: only events go there.
            let banner = "Listening to \(channel.rawValue) as \(user)"
            if json { FileHandle.standardError.write(Data((banner + "\n").utf8)) } else { say(banner) }
            for await event in connection.events {
                if json {
                    say(JSONWriter.string(event.json))
                } else {
                    let who = event.user?.id ?? event.message?.user?.id ?? ""
                    let text = event.message.map { " \($0.text)" } ?? ""
                    let attachments = event.message?.attachments.map(\.type.rawValue) ?? []
                    say("\(event.type.rawValue) \(event.cid?.rawValue ?? "") \(who)\(text)" + (attachments.isEmpty ? "" : " [\(attachments.joined(separator: ", "))]"))
                }
            }
            group.cancelAll()
        }
    }
}
