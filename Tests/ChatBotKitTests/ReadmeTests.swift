import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Foundation
import Testing

// The README's ten-line bot, which the ChatBotKit article "Routing attachments" shows too.
// DocumentationTests holds both to these lines, so neither can drift from code that runs.
struct Workout: AttachmentPayload {
    static let type = AttachmentType(rawValue: "workout")
    var distance: Int
}

func readmeBot() -> Bot {
    let bot = Bot(name: "coach")
    bot.on(Workout.self) { workout, context in
        try await context.reply(text: "Nice, \(workout.distance) m!")
    }
    return bot
}

@Suite("The README")
struct ReadmeTests {
    @Test("the README's bot answers a workout, run with bot.run as the README does, and stops when cancelled")
    func readmeBotRuns() async throws {
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            let bot = readmeBot()
            let running = Task {
                try await bot.run(channels: ["messaging:general"], server: server.baseURL, apiKey: server.apiKey, apiSecret: server.apiSecret)
            }
            // `run` returns nothing until it stops, so wait for the bot's user to come online.
            for _ in 0..<500 where !(await server.server.isOnline("coach")) { try await Task.sleep(for: .milliseconds(10)) }
            try await Task.sleep(for: .milliseconds(200))
            let sent = try await ann.send(Workout(distance: 5000))
            let reply = try await ann.replies(to: sent, from: "coach")
            #expect(reply.first?.text == "Nice, 5000 m!")
            running.cancel()
            try await running.value
        }
    }

    // ChatBotKitTesting's article "Testing a bot" shows this test; DocumentationTests holds it to these lines.
    @Test("the test that the article Testing a bot shows is how tests are written here")
    func readmeTestSnippet() async throws {
        let bot = readmeBot()
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let sent = try await ann.send(Workout(distance: 5000))
                let reply = try await ann.replies(to: sent, from: "coach")
                #expect(reply.first?.text == "Nice, 5000 m!")
            }
        }
    }
}
