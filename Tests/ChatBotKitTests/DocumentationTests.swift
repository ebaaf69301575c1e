import ChatBotKitConfiguration
import Foundation
import Testing

/// The code that README.md and the DocC articles (`Sources/<Module>/<Module>.docc/*.md`) show.
/// Every ```swift block of them is listed in ``DocumentationTests/sources`` with the file its
/// code comes from, a file this package compiles and whose tests run it, and is held to that
/// file: a block that adds or changes a line fails here, and so does a block nobody listed.
@Suite("The documentation's code")
struct DocumentationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Where a block's code comes from, as a path from the package's root.
    enum Source: Sendable {
        /// Each line of the block, trimmed, appears in the file in the same order. Blank lines
        /// and lines that start with one of `skipping` aside; the block may leave out lines of
        /// the file (a test's own checks), not add or change one.
        case lines(String, skipping: [String] = [])
        /// The block is the whole file, byte for byte.
        case file(String)
        /// The block is how the file ends, byte for byte.
        case endOf(String)
    }

    /// Each document's ```swift blocks, in order, and where each one's code comes from. A new
    /// block goes here with the test file that compiles and runs it.
    static let sources: [String: [[Source]]] = [
        "README.md": [
            // The ten-line bot: Examples/HelloBot's main.swift (HelloBotPackageTests builds its
            // dependency graph), and the bot that ReadmeTests runs.
            [
                .file("Examples/HelloBot/Sources/HelloBot/main.swift"),
                .lines("Tests/ChatBotKitTests/ReadmeTests.swift", skipping: ["import ", "try await bot.run("]),
            ],
            // The dependency and the product, as HelloBot's manifest has them; its own is a path.
            [.lines("Examples/HelloBot/Package.swift", skipping: [".package(url:"])],
        ],
        "Sources/ChatBotKit/ChatBotKit.docc/RoutingAttachments.md": [
            [.lines("Tests/ChatBotKitTests/ReadmeTests.swift")]
        ],
        "Sources/ChatBotKit/ChatBotKit.docc/AIAssistants.md": [
            [.lines("Tests/ExamplesTests/AIAssistantsArticleTests.swift")],
            [.lines("Tests/ExamplesTests/AIAssistantsArticleTests.swift")],
        ],
        "Sources/ChatBotKit/ChatBotKit.docc/Outages.md": [
            [.lines("Tests/ChatBotKitTests/DeadLetterTests.swift")]
        ],
        "Sources/ChatBotKit/ChatBotKit.docc/Conversations.md": [
            [.lines("Tests/ChatBotKitTests/ConversationTests.swift")]
        ],
        "Sources/ChatBotKitWebhooks/ChatBotKitWebhooks.docc/CustomCommands.md": [
            [.lines("Tests/ChatBotKitTests/CustomCommandTests.swift")]
        ],
        "Sources/BotsCLI/BotsCLI.docc/OwnBotKinds.md": [
            [.endOf("Examples/CoachBot/Sources/CoachBot/Coach.swift")],
            [.file("Examples/CoachBot/Sources/coach/main.swift")],
        ],
        "Sources/ChatBotKitTesting/ChatBotKitTesting.docc/TestingABot.md": [
            [.lines("Tests/ChatBotKitTests/ReadmeTests.swift")]
        ],
    ]

    /// One ```swift block: its document, its place there, and its text (each line ending in a
    /// newline, as a file's do).
    struct Block: Sendable, CustomTestStringConvertible {
        var document: String
        var index: Int
        var line: Int
        var text: String
        var testDescription: String { "\(document):\(line) (block \(index + 1))" }
    }

    /// README.md and every Markdown file of every DocC catalog.
    static func documents() throws -> [String] {
        var found = ["README.md"]
        let sources = root.appendingPathComponent("Sources")
        for module in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let folder = sources.appendingPathComponent(module)
            for catalog in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where catalog.hasSuffix(".docc") {
                let enumerator = FileManager.default.enumerator(atPath: folder.appendingPathComponent(catalog).path)
                while let file = enumerator?.nextObject() as? String {
                    if file.hasSuffix(".md") { found.append("Sources/\(module)/\(catalog)/\(file)") }
                }
            }
        }
        return found
    }

    /// The ```swift blocks of `document`.
    static func blocks(of document: String) throws -> [Block] {
        let text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
        var blocks: [Block] = []
        var open: (line: Int, lines: [String])?
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if var block = open {
                if line.hasPrefix("```") {
                    blocks.append(Block(document: document, index: blocks.count, line: block.line, text: block.lines.map { $0 + "\n" }.joined()))
                    open = nil
                } else {
                    block.lines.append(String(line))
                    open = block
                }
            } else if line == "```swift" {
                open = (number + 1, [])
            }
        }
        return blocks
    }

    /// Every listed block.
    static var listedBlocks: [Block] {
        (try? sources.keys.sorted().flatMap { try blocks(of: $0) }) ?? []
    }

    @Test("every document's Swift blocks are listed with where their code comes from")
    func everyBlockIsListed() throws {
        let documents = try Self.documents()
        #expect(documents.count > 10, "found \(documents)")
        for document in documents {
            let count = try Self.blocks(of: document).count
            #expect(count == Self.sources[document]?.count ?? 0, "\(document) has \(count) Swift blocks; list each in DocumentationTests.sources")
        }
        for document in Self.sources.keys {
            #expect(documents.contains(document), "\(document) is listed but not found")
        }
    }

    @Test("each Swift block is code that is compiled and tested", arguments: DocumentationTests.listedBlocks)
    func blockIsCompiledCode(_ block: Block) throws {
        let sources = try #require(Self.sources[block.document].flatMap { block.index < $0.count ? $0[block.index] : nil })
        for source in sources {
            switch source {
            case .file(let path):
                let file = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
                #expect(block.text == file, "\(block.testDescription) is not \(path), byte for byte")
            case .endOf(let path):
                let file = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
                #expect(file.hasSuffix(block.text), "\(block.testDescription) is not how \(path) ends, byte for byte")
            case .lines(let path, let skipping):
                let file = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
                let fileLines = file.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                var searchFrom = 0
                for line in block.text.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                    if line.isEmpty || skipping.contains(where: { line.hasPrefix($0) }) { continue }
                    let found = fileLines[searchFrom...].firstIndex(of: line)
                    #expect(found != nil, "\(block.testDescription): this line is not in \(path) (in order): \(line)")
                    searchFrom = (found ?? searchFrom) + 1
                }
            }
        }
    }

    @Test("the README stays short: at most 200 lines")
    func readmeIsShort() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count <= 200)
    }

    @Test("the mistake the bots.yaml article shows under its first file is the error that file with channels misspelt gets, word for word")
    func botsYAMLMistakeIsTheRealError() throws {
        let article = try String(
            contentsOf: Self.root.appendingPathComponent("Sources/ChatBotKitConfiguration/ChatBotKitConfiguration.docc/BotsYAML.md"), encoding: .utf8)
        let afterFence = article.components(separatedBy: "```yaml\n").dropFirst()
        let yaml = try #require(afterFence.first?.components(separatedBy: "```").first)
        let misspelt = yaml.replacingOccurrences(of: "    channels: [", with: "    chanels: [")
        try #require(misspelt != yaml)
        #expect {
            try BotsConfiguration.parse(misspelt, file: "bots.yaml", environment: [:])
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            // The article wraps the message across lines and leaves out the code.
            let shown = "`" + error.description.replacingOccurrences(of: " [\(error.code)]", with: "") + "`"
            let prose = afterFence.first?.components(separatedBy: "```").dropFirst().first?.replacingOccurrences(of: "\n", with: " ") ?? ""
            #expect(prose.contains(shown), "the article should show \(shown)")
            return true
        }
    }
}
