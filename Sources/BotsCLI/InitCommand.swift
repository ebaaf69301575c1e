import ArgumentParser
import ChatModels
import Foundation

/// `bots init NAME`: a new package for a bot kind of one's own: the kind, the command line tool
/// for it (`NAME run`, `simulate`, …), its tests and a bots.yaml, ready for `swift run` and
/// `swift test`.
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write a package for a bot kind of your own: the kind, the command line tool for it, its tests and a bots.yaml.")

    @Argument(help: "The kind's name, which the tool takes too: lowercase letters and digits, words joined by '-' (coach, step-counter).")
    var name: String

    @Option(help: "The folder to write the package in (./NAME by default); it must be new or empty.")
    var directory: String?

    @Option(help: "Where the package finds ChatBotKit: a folder, or a git URL (https://…); by default the checkout this tool was built from.")
    var chatbotkit: String?

    func validate() throws {
        guard Self.isValidName(name) else {
            throw ValidationError(
                "\"\(name)\" cannot name a bot kind: use lowercase letters and digits, starting with a letter, words joined by '-' (coach, step-counter)")
        }
    }

    func run() throws {
        let target = directory ?? name
        let folder = URL(fileURLWithPath: target)
        let source = try ChatBotKitSource(chatbotkit)
        if let existing = try? FileManager.default.contentsOfDirectory(atPath: folder.path), !existing.isEmpty {
            FileHandle.standardError.write(Data("error: \(folder.path) is not empty; nothing was written (give a new folder with --directory)\n".utf8))
            throw ExitCode(73)
        }
        let files = Self.files(name: name, source: source)
        do {
            for file in files {
                let url = folder.appendingPathComponent(file.path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(file.text.utf8).write(to: url, options: .withoutOverwriting)
            }
        } catch {
            FileHandle.standardError.write(Data("error: could not write the package in \(folder.path): \(FileErrorText.describe(error))\n".utf8))
            throw ExitCode(73)
        }
        say("Wrote a package for the bot kind \(name) in \(target), on ChatBotKit at \(source.location):")
        for file in files { say("  \(file.path)") }
        say("""
            Next:
              cd \(target.contains(" ") ? "'\(target)'" : target)
              swift run \(name) simulate --attachment '{"type":"workout","distance":5000}'
              swift test
            """)
    }

    /// Lowercase letters and digits, starting with a letter, words joined by single hyphens.
    static func isValidName(_ name: String) -> Bool {
        let words = name.split(separator: "-", omittingEmptySubsequences: false)
        return !name.isEmpty && name.utf8.count <= 64
            && words.allSatisfy { word in
                !word.isEmpty && word.utf8.allSatisfy { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) }
            }
            && name.utf8.first.map { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") } == true
    }

    /// The package's files for the kind `name` (valid), on ChatBotKit from `source`.
    static func files(name: String, source: ChatBotKitSource) -> [(path: String, text: String)] {
        let type = name.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        let substitutions = [
            ("{{name}}", name), ("{{Type}}", type), ("{{Module}}", type + "Bot"), ("{{package}}", source.identity), ("{{dependency}}", source.dependency),
        ]
        func render(_ text: String) -> String {
            substitutions.reduce(text) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
        }
        return ProjectTemplate.files.map { (render($0.path), render($0.text) + "\n") }
    }
}

/// Where a new package finds ChatBotKit.
struct ChatBotKitSource {
    /// As the user gave it, or the checkout's folder.
    let location: String
    /// The `.package(…)` line.
    let dependency: String
    /// The package's identity, which `.product(name:package:)` names: the last part of its
    /// path or URL.
    let identity: String

    /// The checkout this tool was built from: this file is Sources/BotsCLI/InitCommand.swift in it.
    static let builtFrom = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `location`: a git URL, a folder holding ChatBotKit's Package.swift, or nil for the
    /// checkout this tool was built from (`builtFrom`), unless that is a dependency's checkout
    /// in another package's build folder: a tool of one's own (`coach init`) depends on
    /// ChatBotKit by URL, and a package pointing into another's `.build` would break with it.
    init(_ given: String?, builtFrom: URL = ChatBotKitSource.builtFrom) throws {
        if let given, given.contains("://") || given.hasPrefix("git@") {
            let last = given.split(separator: "/").last.map(String.init) ?? given
            location = given
            identity = last.hasSuffix(".git") ? String(last.dropLast(4)) : last
            dependency = #".package(url: "\#(given)", branch: "main", traits: ["Tools"])"#
            return
        }
        if given == nil, builtFrom.pathComponents.contains("checkouts") {
            throw ValidationError(
                "this tool was built with ChatBotKit as a dependency (\(builtFrom.path)); give --chatbotkit the git URL your package depends on, or a ChatBotKit checkout")
        }
        let folder = given.map { URL(fileURLWithPath: $0).standardizedFileURL } ?? builtFrom
        let manifest = (try? String(contentsOf: folder.appendingPathComponent("Package.swift"), encoding: .utf8)) ?? ""
        guard manifest.contains(#"name: "ChatBotKit""#) else {
            let reason =
                given == nil
                ? "this tool was built from \(folder.path), which no longer holds ChatBotKit's Package.swift"
                : "\(folder.path) does not hold ChatBotKit's Package.swift"
            throw ValidationError("\(reason); give --chatbotkit a ChatBotKit checkout or its git URL")
        }
        location = folder.path
        identity = folder.lastPathComponent
        dependency = #".package(path: "\#(folder.path)", traits: ["Tools"])"#
    }
}
