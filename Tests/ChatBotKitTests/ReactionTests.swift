import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Prometheus
import Testing

/// Records the trigger of everything that passes, as a user's middleware would see it.
private struct TriggerLog: BotMiddleware {
    let recorder: Recorder<String>
    func handle(_ message: Message, context: BotContext, next: @Sendable (Message, BotContext) async throws -> Void) async throws {
        if case .reaction(let reaction, let isRemoved) = context.trigger {
            recorder.record("middleware \(isRemoved ? "-" : "+")\(reaction.type)")
        }
        try await next(message, context)
    }
}

@Suite("Reactions: handlers for reactions added to messages and taken off them")
struct ReactionTests {
    @Test("added and taken off, by type or any, on the bot's own answers too, once each, through middleware; the bot's own are not handled")
    func reactionsReachTheirHandlers() async throws {
        try await TestChatServer.withServer { server in
            let registry = PrometheusCollectorRegistry()
            let recorder = Recorder<String>()
            let bot = Bot(name: "greeter", user: User(id: "greeter-bot"))
            bot.use(TriggerLog(recorder: recorder))
            bot.onMessage { context in
                recorder.record("message \(context.message.text)")
                try await context.reply(text: "hello \(context.message.user?.id ?? "?")")
                // The bot's own reaction is not handled.
                try await context.react("wave")
            }
            bot.onReaction("like") { reaction, context in
                recorder.record("like by \(reaction.user?.id ?? "?") on \(context.message.text)")
                try await context.reply(text: "thanks, \(reaction.user?.id ?? "?")")
            }
            bot.onReaction { reaction, context in recorder.record("any +\(reaction.type) on \(context.message.text)") }
            bot.onReactionRemoved("like") { reaction, context in
                recorder.record("like taken off by \(reaction.user?.id ?? "?") from \(context.message.text)")
            }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"], metricsFactory: PrometheusMetricsFactory(registry: registry)) { _ in
                let sent = try await ann.send(text: "hi")
                let answer = try #require(try await ann.replies(to: sent, from: "greeter-bot").first)
                try await recorder.wait { $0.contains("message hi") }
                try await ann.client.sendReaction("like", to: answer.id, as: "ann")
                try await ann.client.sendReaction("wow", to: sent.id, as: "ann")
                try await ann.client.deleteReaction("like", from: answer.id, as: "ann")
                try await recorder.wait { $0.contains { $0.hasPrefix("like taken off") } }
                let thanks = try await ann.replies(to: answer, from: "greeter-bot")
                #expect(thanks.map(\.text) == ["thanks, ann"], "a reply to a reaction is a reply in the channel")
                let samples = MetricSamples(registry.emitToString())
                #expect(samples["chatbotkit_bot_deliveries_total", ["bot": "greeter", "trigger": "reaction"]] == 3)
            }
            #expect(
                recorder.all == [
                    "message hi",
                    "middleware +like", "like by ann on hello ann", "any +like on hello ann",
                    "middleware +wow", "any +wow on hi",
                    "middleware -like", "like taken off by ann from hello ann",
                ])
        }
    }

    @Test("a reaction added again after it was taken off is handled again; a reaction replaced by another counts as added")
    func againAndReplaced() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "counter", user: User(id: "counter-bot"))
            bot.onReaction { reaction, _ in recorder.record("+\(reaction.type)") }
            bot.onReactionRemoved { reaction, _ in recorder.record("-\(reaction.type)") }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let sent = try await ann.send(text: "vote")
                try await ann.client.sendReaction("up", to: sent.id, as: "ann")
                try await ann.client.deleteReaction("up", from: sent.id, as: "ann")
                try await ann.client.sendReaction("up", to: sent.id, as: "ann")
                try await ann.client.sendReaction("down", to: sent.id, enforceUnique: true, as: "ann")
                try await recorder.wait { $0.count >= 4 }
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(recorder.all == ["+up", "-up", "+up", "+down"], "the up replaced by down is gone without a reaction.deleted of its own")
        }
    }

    @Test("reactions added and taken off while the bot was stopped reach it when it starts again, once each")
    func caughtUp() async throws {
        let scratch = try ScratchFolder("checkpoint")
        let file = scratch.path("checkpoint/keeper.json")
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            func reactionBot(_ recorder: Recorder<String>) -> Bot {
                let bot = Bot(name: "keeper")
                bot.onMessage { context in recorder.record("new \(context.message.text)") }
                bot.onReaction { reaction, context in recorder.record("+\(reaction.type) on \(context.message.text)") }
                bot.onReactionRemoved { reaction, context in recorder.record("-\(reaction.type) on \(context.message.text)") }
                return bot
            }
            let first = Recorder<String>()
            let sent = try await server.withBot(
                reactionBot(first), channels: ["messaging:general"], configuration: CatchUpTests.configuration(file)
            ) { _ in
                let sent = try await ann.send(text: "photo")
                try await ann.client.sendReaction("like", to: sent.id, as: "ann")
                try await first.wait { $0.count == 2 }
                return sent
            }
            // While the bot is stopped.
            try await ann.client.sendReaction("love", to: sent.id, as: "ann")
            try await ann.client.deleteReaction("like", from: sent.id, as: "ann")

            let second = Recorder<String>()
            try await server.withBot(reactionBot(second), channels: ["messaging:general"], configuration: CatchUpTests.configuration(file)) { _ in
                try await second.wait { $0.count == 2 }
                try await Task.sleep(for: .milliseconds(300))
            }
            #expect(first.all == ["new photo", "+like on photo"])
            #expect(second.all == ["+love on photo", "-like on photo"], "what was handled before is not handled again")
        }
    }

    @Test("a bot without reaction handlers takes no reaction deliveries, so reactions neither queue nor count for it")
    func noHandlersNoDeliveries() async throws {
        try await TestChatServer.withServer { server in
            let registry = PrometheusCollectorRegistry()
            let recorder = Recorder<String>()
            let bot = Bot(name: "plain", user: User(id: "plain-bot"))
            bot.onMessage { context in recorder.record(context.message.text) }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"], metricsFactory: PrometheusMetricsFactory(registry: registry)) { _ in
                let first = try await ann.send(text: "one")
                try await ann.client.sendReaction("like", to: first.id, as: "ann")
                try await ann.send(text: "two")
                try await recorder.wait { $0 == ["one", "two"] }
                let samples = MetricSamples(registry.emitToString())
                #expect(samples["chatbotkit_bot_deliveries_total", ["bot": "plain", "trigger": "message"]] == 2)
                #expect(samples["chatbotkit_bot_deliveries_total", ["bot": "plain", "trigger": "reaction"]] == 0)
            }
        }
    }
}
