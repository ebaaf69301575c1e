import ChatBotKitConfiguration
import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import Foundation
import Testing

// The README's ten-line bot. `ReadmeTests.readmeShowsThisCode` checks that README.md shows these
// lines, so the README cannot drift from code that runs.
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
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("the README's bot is this file's bot, line for line")
    func readmeShowsThisCode() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let block = try #require(readme.components(separatedBy: "```swift\n").dropFirst().first?.components(separatedBy: "```").first)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let sourceLines = source.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        var searchFrom = 0
        for line in block.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("import ") || line.hasPrefix("try await bot.run(") { continue }
            let found = sourceLines[searchFrom...].firstIndex(of: line)
            #expect(found != nil, "README line not in the tested code: \(line)")
            searchFrom = (found ?? searchFrom) + 1
        }
        #expect(block.contains("try await bot.run(channels: [\"messaging:general\"])"))
    }

    @Test("the README's custom command is the tested helpdesk's, line for line")
    func readmeCustomCommandIsTested() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "```swift\nbot.customCommand(\"ticket\""))
        let block = try #require(readme[start.upperBound...].components(separatedBy: "```").first).split(separator: "\n").dropFirst()
        let source = try String(contentsOf: Self.root.appendingPathComponent("Tests/ChatBotKitTests/CustomCommandTests.swift"), encoding: .utf8)
        let sourceLines = source.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        var searchFrom = sourceLines.firstIndex { $0.hasPrefix("bot.customCommand(\"ticket\"") } ?? 0
        #expect(block.count > 10)
        for line in block.map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let found = sourceLines[searchFrom...].firstIndex(of: line)
            #expect(found != nil, "README line not in the tested helpdesk: \(line)")
            searchFrom = (found ?? searchFrom) + 1
        }
    }

    @Test("the README's conversation is the tested sign-up bot's, line for line")
    func readmeConversationIsTested() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "```swift\nenum SignUp: Conversation {"))
        let block = try #require(readme[start.lowerBound...].dropFirst("```swift".count).components(separatedBy: "```").first).split(separator: "\n")
        let source = try String(contentsOf: Self.root.appendingPathComponent("Tests/ChatBotKitTests/ConversationTests.swift"), encoding: .utf8)
        let sourceLines = source.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        var searchFrom = 0
        #expect(block.count > 20)
        for line in block.map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let found = sourceLines[searchFrom...].firstIndex(of: line)
            #expect(found != nil, "README line not in the tested sign-up bot: \(line)")
            searchFrom = (found ?? searchFrom) + 1
        }
    }

    @Test("the README's own bot kind is Examples/CoachBot's, and its tool that example's main.swift, whole")
    func readmeOwnKindIsTheCoachExample() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## Your own bot kinds\n").dropFirst().first)
        let blocks = section.components(separatedBy: "```swift\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
        try #require(blocks.count >= 2)
        let kind = try String(contentsOf: Self.root.appendingPathComponent("Examples/CoachBot/Sources/CoachBot/Coach.swift"), encoding: .utf8)
        let tool = try String(contentsOf: Self.root.appendingPathComponent("Examples/CoachBot/Sources/coach/main.swift"), encoding: .utf8)
        #expect(blocks[0].hasPrefix("public enum Coach: BotKind {") && kind.hasSuffix(blocks[0]))
        #expect(blocks[1] == tool)
    }

    @Test("the mistake the README shows under its bots.yaml is the error that bots.yaml with channels misspelt gets, word for word")
    func readmeConfigurationMistakeIsTheRealError() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## bots.yaml\n").dropFirst().first)
        let yaml = try #require(section.components(separatedBy: "```yaml\n").dropFirst().first?.components(separatedBy: "```").first)
        let misspelt = yaml.replacingOccurrences(of: "    channels: [", with: "    chanels: [")
        try #require(misspelt != yaml)
        #expect {
            try BotsConfiguration.parse(misspelt, file: "bots.yaml", environment: [:])
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            // The README wraps the message across lines and leaves out the code.
            let shown = "`" + error.description.replacingOccurrences(of: " [\(error.code)]", with: "") + "`"
            let prose = section.components(separatedBy: "```").dropFirst(2).first?.replacingOccurrences(of: "\n", with: " ") ?? ""
            #expect(prose.contains(shown), "the README should show \(shown)")
            return true
        }
    }

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

    @Test("the README's test snippet is how tests are written here")
    func readmeTestSnippet() async throws {
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(readmeBot(), channels: ["messaging:general"]) { _ in
                let sent = try await ann.send(Workout(distance: 5000))
                let reply = try await ann.replies(to: sent, from: "coach")
                #expect(reply.first?.text == "Nice, 5000 m!")
            }
        }
    }
}
