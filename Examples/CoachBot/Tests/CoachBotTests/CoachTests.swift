import ChatBotKit
import ChatBotKitConfiguration
import ChatBotKitTesting
import CoachBot
import Foundation
import Testing

@Suite("The coach")
struct CoachTests {
    @Test("a workout gets its distance back with the cheer")
    func answersAWorkout() async throws {
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let bot = Coach.make(name: "coach", user: User(id: "coach-bot"), cheer: "Way to go")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let sent = try await ann.send(Workout(distance: 5000))
                let reply = try await ann.replies(to: sent, from: "coach-bot")
                #expect(reply.first?.text == "Way to go, 5000 m!")
            }
        }
    }

    @Test("bots.yaml gives the cheer, and a key the coach does not know is an error where it is")
    func options() throws {
        let environment = BotKindEnvironment(dataDirectory: FileManager.default.temporaryDirectory)
        let file = """
            server: { api_key: key, api_secret: a-secret-of-at-least-thirty-two-bytes }
            bots:
              - { name: coach, kind: coach, user: coach-bot, channels: [messaging:general], cheer: Go }
              - name: typo
                kind: coach
                user: typo-bot
                channels: [messaging:general]
                chear: Go
            """
        let entries = try BotsConfiguration.parse(file).bots
        #expect(try Coach.makeBot(entries[0], environment: environment).name == "coach")
        let error = #expect(throws: ConfigurationError.self) { try Coach.makeBot(entries[1], environment: environment) }
        #expect(error?.description.hasPrefix(#"bots.yaml:8:5: error: unknown key "chear" in bots[1] (did you mean "cheer"?)"#) == true)
    }
}
