import BotsCLI
import ChatBotKit
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
