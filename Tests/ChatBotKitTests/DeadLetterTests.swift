import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import ChatTestSupport
import Foundation
import Prometheus
import Synchronization
import Testing

@Suite("Dead letters: deliveries given up go to onError and to dead-letters/<bot>.jsonl; the channel goes on")
struct DeadLetterTests {
    static func configuration(_ scratch: ScratchFolder) -> BotService.Configuration {
        var configuration = TestChatServer.testBotConfiguration
        configuration.catchUp = BotService.CatchUp(checkpointFile: scratch.path("checkpoints/keeper.json"))
        return configuration
    }

    /// A bot that replies, and throws an error of its own on "bad" while `failing` is set.
    static func bot(failing: Flag, errors: Recorder<BotError>) -> Bot {
        let bot = Bot(name: "keeper")
        bot.onMessage { context in
            struct Broken: Error {}
            if context.message.text == "bad", failing.isSet { throw Broken() }
            try await context.reply(text: "re: \(context.message.text)")
        }
        bot.onError { error, _ in errors.record(error) }
        return bot
    }

    @Test("a handler's own error: onError once, a dead letter (reason handler_error), the next message handled; retry runs it once fixed")
    func handlerErrorThenRetry() async throws {
        let scratch = try ScratchFolder("dead-letters")
        try await TestChatServer.withServer { server in
            let failing = Flag()
            let errors = Recorder<BotError>()
            let registry = PrometheusCollectorRegistry()
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:one")
            let configuration = Self.configuration(scratch)
            let letters = DeadLetterFile(file: configuration.catchUp!.deadLetterFile)
            #expect(letters.file.path == scratch.path("dead-letters/keeper.jsonl").path, "beside the checkpoints")
            try await server.withBot(
                Self.bot(failing: failing, errors: errors), channels: ["messaging:one"], configuration: configuration,
                metricsFactory: PrometheusMetricsFactory(registry: registry)
            ) { _ in
                let bad = try await ann.send(text: "bad")
                let good = try await ann.send(text: "good")
                #expect(try await reply(to: good, by: ann) == "re: good", "the channel went on")
                try await eventually("the dead letter is written") { try letters.letters().count == 1 }
                let letter = try #require(try letters.letters().first)
                #expect(letter.key == bad.id && letter.reason == .handlerError && letter.attempts == 1 && letter.message?.text == "bad")
                #expect(letter.error.contains("Broken"), "\(letter.error)")
                #expect(errors.all.map(\.attempts) == [1] && errors.all.first?.messageId == bad.id)
                #expect(MetricSamples(registry.emitToString())["chatbotkit_dead_letters_total", ["bot": "keeper", "reason": "handler_error"]] == 1)

                failing.clear()
                #expect(try letters.retry(nil).map(\.key) == [bad.id])
                #expect(try await reply(to: bad, by: ann) == "re: bad", "retry ran it")
                #expect(try letters.letters().isEmpty)
                #expect(!FileManager.default.fileExists(atPath: letters.retryFile.path), "the request was taken")
            }
        }
    }

    @Test("an outage longer than the tolerance (1 s): the held reply gives up, the message is a dead letter with reason outage")
    func outagePastTolerance() async throws {
        let scratch = try ScratchFolder("dead-letters-outage")
        try await TestChatServer.withServer { server in
            let errors = Recorder<BotError>()
            let started = Recorder<String>()
            let bot = Bot(name: "keeper")
            bot.onMessage { context in
                started.record(context.message.text)
                if context.message.text == "held" { try await Task.sleep(for: .milliseconds(500)) }
                try await context.reply(text: "re: \(context.message.text)")
            }
            bot.onError { error, _ in errors.record(error) }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:one")
            let configuration = Self.configuration(scratch)
            let letters = DeadLetterFile(file: configuration.catchUp!.deadLetterFile)
            try await server.withBot(bot, channels: ["messaging:one"], configuration: configuration, configureClient: { $0.outageTolerance = .seconds(1) }) { _ in
                let held = try await ann.send(text: "held")
                try await started.wait { $0 == ["held"] }
                await server.stop()
                try await eventually("the dead letter is written", timeout: .seconds(15)) { try letters.letters().count == 1 }
                try await server.restart()
                let letter = try #require(try letters.letters().first)
                #expect(letter.key == held.id && letter.reason == .outage, "\(letter)")
                #expect(errors.all.count == 1 && errors.all[0].description.contains("gave up after"), "\(errors.all.map(\.description))")
                let after = try await ann.send(text: "after")
                #expect(try await reply(to: after, by: ann) == "re: after", "the channel went on")
            }
        }
    }

    @Test("a dead-letter file that does not parse is kept aside as .unreadable and the bot starts; new letters go to a fresh file")
    func unreadableFileSetAside() async throws {
        let scratch = try ScratchFolder("dead-letters-unreadable")
        try await TestChatServer.withServer { server in
            let configuration = Self.configuration(scratch)
            let file = configuration.catchUp!.deadLetterFile
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("{\"key\": \"half a line".utf8).write(to: file)
            let errors = Recorder<BotError>()
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:one")
            try await server.withBot(Self.bot(failing: Flag(), errors: errors), channels: ["messaging:one"], configuration: configuration) { _ in
                let aside = file.appendingPathExtension("unreadable")
                #expect(String(data: try Data(contentsOf: aside), encoding: .utf8) == "{\"key\": \"half a line", "kept to look at")
                let bad = try await ann.send(text: "bad")
                try await eventually("the dead letter is written") { try DeadLetterFile(file: file).letters().map(\.key) == [bad.id] }
            }
            let error = #expect(throws: BotError.self) { try DeadLetterFile(file: file.appendingPathExtension("unreadable")).letters() }
            #expect(error?.code == .deadLettersUnreadable && error?.message.contains(":1: not a dead letter") == true, "\(String(describing: error))")
        }
    }
}

/// A switch that handlers read and the test turns off.
final class Flag: Sendable {
    private let value = Mutex(true)
    var isSet: Bool { value.withLock { $0 } }
    func clear() { value.withLock { $0 = false } }
}
