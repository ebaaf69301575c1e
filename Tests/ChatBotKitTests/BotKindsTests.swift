import ChatBotKitWebhooks
import ChatBotKitConfiguration
import ArgumentParser
@testable import BotsCLI
import ChatBotKit
import ChatBotKitTesting
import ChatLocking
import Foundation
import Logging
import Testing

private enum Echo: BotKind {
    static let name = "echo"
    static func makeBot(_ entry: BotsConfiguration.BotEntry, environment: BotKindEnvironment) throws -> Bot {
        Bot(name: entry.name, user: User(id: entry.user))
    }
}

private enum Shout: BotKind {
    static let name = "shout"
    static let samples = [BotKindSample("--text hello"), BotKindSample("--text '/shout hi'", customCommand: "shout")]
    static func makeBot(_ entry: BotsConfiguration.BotEntry, environment: BotKindEnvironment) throws -> Bot {
        Bot(name: entry.name, user: User(id: entry.user))
    }
}

/// Another kind that took `echo`, as a copied kind would.
private enum EchoCopy: BotKind {
    static let name = "echo"
    static func makeBot(_ entry: BotsConfiguration.BotEntry, environment: BotKindEnvironment) throws -> Bot {
        Bot(name: entry.name, user: User(id: entry.user))
    }
}

@Suite("The kinds given to BotsCLI")
struct BotKindsTests {
    @Test("kinds are found by their names; a kind without samples has none")
    func byName() throws {
        let kinds = try BotsCLI.byName([Echo.self, Shout.self])
        #expect(kinds.keys.sorted() == ["echo", "shout"])
        #expect(kinds["echo"].map { $0 == Echo.self } == true)
        #expect(kinds["echo"]?.samples == [])
        #expect(kinds["shout"]?.samples.map(\.customCommand) == [nil, "shout"])
        #expect(try BotsCLI.byName([]).isEmpty)
    }

    @Test("two kinds with one name are a configuration error naming both, whatever their order")
    func twoKindsWithOneName() {
        for kinds: [any BotKind.Type] in [[Echo.self, Shout.self, EchoCopy.self], [EchoCopy.self, Echo.self]] {
            let error = #expect(throws: BotError.self) { try BotsCLI.byName(kinds) }
            #expect(error?.code == .configuration)
            #expect(error?.message.contains("two bot kinds are named \"echo\"") == true)
            #expect(error?.message.contains("EchoCopy") == true)
            #expect(error?.message.contains("Echo and") == true || error?.message.contains("and Echo;") == true)
        }
    }
}

@Suite("Where a package written by init finds ChatBotKit")
struct ChatBotKitSourceTests {
    @Test("a checkout is a path dependency named by its folder; a git URL by its last part; a dependency's checkout is refused")
    func sources() throws {
        let scratch = try ScratchFolder("cbk")
        let checkout = scratch.path("ChatBotKit")
        try FileManager.default.createDirectory(at: checkout, withIntermediateDirectories: true)
        try Data(#"let package = Package(name: "ChatBotKit")"#.utf8).write(to: checkout.appendingPathComponent("Package.swift"))

        let built = try ChatBotKitSource(nil, builtFrom: checkout)
        #expect(built.dependency == #".package(path: "\#(checkout.path)", traits: ["Tools"])"#)
        #expect(built.identity == "ChatBotKit")
        let given = try ChatBotKitSource(checkout.path + "/", builtFrom: URL(fileURLWithPath: "/nowhere"))
        #expect(given.location == checkout.path)
        let url = try ChatBotKitSource("https://example.com/team/chat-bot-kit.git")
        #expect(url.dependency == #".package(url: "https://example.com/team/chat-bot-kit.git", branch: "main", traits: ["Tools"])"#)
        #expect(url.identity == "chat-bot-kit")

        // `coach init` in a tool of one's own, whose ChatBotKit is a checkout in its .build.
        let dependency = URL(fileURLWithPath: "/home/ann/coach/.build/checkouts/ChatBotKit")
        let refused = #expect(throws: ValidationError.self) { try ChatBotKitSource(nil, builtFrom: dependency) }
        #expect(refused?.message.hasPrefix("this tool was built with ChatBotKit as a dependency (/home/ann/coach/.build/checkouts/ChatBotKit)") == true)
        #expect(try ChatBotKitSource(checkout.path, builtFrom: dependency).location == checkout.path)
        let notOne = #expect(throws: ValidationError.self) { try ChatBotKitSource(nil, builtFrom: checkout.deletingLastPathComponent()) }
        #expect(notOne?.message.contains("no longer holds ChatBotKit's Package.swift") == true)
    }
}

/// A subcommand of a tool's own, as a user writes one.
private struct Wave: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Wave at a user.")
    static let waved = Recorder<String>()
    @OptionGroup var options: ConfigOptions
    @Argument(help: "Who to wave at.") var user: String
    func run() async throws { Wave.waved.record("\(user) with \(options.config)") }
}

/// Named as a built-in command.
private struct Doctor: ParsableCommand {}

/// Named as `Wave` is.
private struct OtherWave: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "wave")
}

@Suite("A tool's own subcommands")
struct OwnCommandsTests {
    @Test("they follow the built-in ones, parse with the built-ins' --config, and run")
    func listedAndRun() async throws {
        BotsCLI.registeredCommands.withLock { $0 = try! BotsCLI.ownCommands([Wave.self]) }
        defer { BotsCLI.registeredCommands.withLock { $0 = [] } }
        #expect(BotsCommand.configuration.subcommands.map { $0._commandName }.suffix(2) == ["init", "wave"])
        var command = try #require(try BotsCommand.parseAsRoot(["wave", "alice", "--config", "team.yaml"]) as? any AsyncParsableCommand)
        try await command.run()
        #expect(Wave.waved.all == ["alice with team.yaml"])
        #expect(BotsCommand.helpMessage().contains("wave                    Wave at a user."))
    }

    @Test("a command named as a built-in one or as another is a configuration error naming both")
    func clashes() throws {
        let builtIn = #expect(throws: BotError.self) { try BotsCLI.ownCommands([Doctor.self]) }
        #expect(builtIn?.code == .configuration)
        #expect(builtIn?.message.contains("is named \"doctor\", as the built-in doctor is") == true, "\(builtIn?.message ?? "")")
        let twice = #expect(throws: BotError.self) { try BotsCLI.ownCommands([Wave.self, OtherWave.self]) }
        #expect(twice?.message.contains("OtherWave is named \"wave\", as Wave is") == true, "\(twice?.message ?? "")")
        #expect(try BotsCLI.ownCommands([]).isEmpty)
    }
}

@Suite("The webhook server bots run makes")
struct RunWebhookServerTests {
    @Test("its custom commands are answered within webhook.commands_deadline")
    func commandsDeadline() throws {
        let configuration = try BotsConfiguration.parse(
            """
            server: {api_key: key, api_secret: a-secret-of-at-least-32-bytes-long}
            webhook: {port: 0, commands_deadline: 2s}
            bots: []
            """)
        let server = configuration.webhookServer(at: try #require(configuration.webhook), logger: Logger(label: "test"))
        #expect(server.commands?.answerDeadline == .seconds(2))
    }
}
