import ArgumentParser
import ChatClient
import ChatModels
import Foundation

/// `bots chat`: talk to the bots of a channel from a terminal, a line per message, and see
/// what they answer as it comes; a conversation (`/goal`) is tried the way a person has it.
struct ChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat", abstract: "Talk to the bots in a channel, a line per message (:help lists the rest; Ctrl-D ends).")

    @OptionGroup var options: ConfigOptions

    @Option(help: "The channel, type:id.")
    var channel: ChannelId = "messaging:general"

    @Option(help: "The user to talk as (created if needed).")
    var user: String = "alice"

    @Option(help: "Seconds to wait for the bots' last answers once the input ends.")
    var linger: Double = 3

    func run() async throws {
        let (channel, user, linger) = (self.channel, self.user, self.linger)
        guard linger >= 0, linger <= 600 else { throw ValidationError("--linger must be 0 to 600 seconds, found \(linger)") }
        let (client, configuration) = try options.client(as: user)
        try await options.reaching(configuration) { try await client.upsertUsers([User(id: user, name: user.capitalized)]) }
        let connection = EventConnection(client: client, user: User(id: user))
        let session = ChatSession(client: client, channel: channel, user: user)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await connection.run() }
            await connection.waitUntilConnected()
            try await connection.watch(channel)
            // Said before anything the channel says is shown: a bot's welcome can come as soon
            // as the user joins, and was once shown above this line.
            say("Talking in \(channel.rawValue) as \(user). A line is a message; :help lists the rest.")
            group.addTask {
                for await event in connection.events { session.show(event) }
            }
            // Joined once watching, so what the bots say to a new member (a welcome) shows.
            try await client.join(channel, as: user)
            group.addTask { await ChatConnectionNotices(connection: connection, say: say).run() }
            for await line in StandardInputLines.lines() {
                do {
                    guard try await session.take(line) else { break }
                } catch let error as ChatLineError {
                    FileHandle.standardError.write(Data("error: \(error.message)\n".utf8))
                } catch {
                    FileHandle.standardError.write(Data("error: \(error) (nothing was sent)\n".utf8))
                }
            }
            try await Task.sleep(for: .seconds(linger))
            group.cancelAll()
        }
    }
}

/// Standard input's lines, read on a thread of their own (reading blocks).
enum StandardInputLines {
    static func lines() -> AsyncStream<String> {
        AsyncStream { continuation in
            let thread = Thread {
                while let line = readLine(strippingNewline: true) { continuation.yield(line) }
                continuation.finish()
            }
            thread.start()
        }
    }
}
