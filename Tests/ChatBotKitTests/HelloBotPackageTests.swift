import ChatBotKitTesting
import Foundation
import Testing

/// Examples/HelloBot: the README's ten-line bot as a package of its own that depends on the
/// ChatBotKit product alone, as a user's would.
@Suite("The README's bot as a package of its own")
struct HelloBotPackageTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let package = root.appendingPathComponent("Examples/HelloBot")

    @Test("its main.swift is the README's bot, word for word")
    func isTheReadmeBot() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let block = try #require(readme.components(separatedBy: "```swift\n").dropFirst().first?.components(separatedBy: "```").first)
        let main = try String(contentsOf: Self.package.appendingPathComponent("Sources/HelloBot/main.swift"), encoding: .utf8)
        #expect(main == block)
    }

    @Test("its resolved dependencies hold no server stack: no SwiftNIO, Hummingbird, CompressNIO or Yams")
    func resolvesNoServerStack() throws {
        let folder = try ScratchFolder("hellobot")
        let scratch = folder.path("hellobot")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "package", "--scratch-path", scratch.path, "show-dependencies", "--format", "json"]
        process.currentDirectoryURL = Self.package
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let json = output.fileHandleForReading.readDataToEndOfFile()
        let messages = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "swift package show-dependencies failed: \(messages)")
        let graph = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        let identities = Self.identities(in: graph)
        #expect(identities.contains("swift-log") && identities.contains("swift-service-lifecycle"), "the graph as read: \(identities.sorted())")
        let serverStack: Set = ["swift-nio", "hummingbird", "hummingbird-websocket", "compress-nio", "yams", "grdb.swift", "postgres-nio", "swift-crypto"]
        #expect(identities.isDisjoint(with: serverStack), "server packages in a bot's graph: \(identities.intersection(serverStack).sorted())")
    }

    /// Every package identity below `node` in `show-dependencies --format json`.
    static func identities(in node: [String: Any]) -> Set<String> {
        var found: Set<String> = []
        for child in node["dependencies"] as? [[String: Any]] ?? [] {
            if let identity = child["identity"] as? String { found.insert(identity.lowercased()) }
            found.formUnion(identities(in: child))
        }
        return found
    }
}
