import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatDevServer
import ChatModels
import ChatTestSupport
import Foundation
import Prometheus
import Testing

@Suite("A handler failing on a transient error runs again; its channel's later messages wait, other channels go on")
struct HandlerRetryTests {
    @Test("two 503s on a call that is not safe to repeat: the handler runs three times, its reply is sent once, the next message waits")
    func transientFailureRunsAgain() async throws {
        try await TestChatServer.withServer { server in
            let handled = Recorder<String>()
            let errors = Recorder<String>()
            let registry = PrometheusCollectorRegistry()
            let bot = Bot(name: "keeper")
            bot.onMessage { context in
                handled.record(context.message.text)
                // A custom event is not safe to repeat, so the client does not retry it: the handler fails.
                if context.message.text.hasPrefix("thinking") { try await context.client.sendEvent("bot.thinking", to: context.channel.cid) }
                try await context.reply(text: "re: \(context.message.text)")
            }
            bot.onError { error, _ in errors.record(error.description) }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:one")
            let bob = try await TestUser.join(server, id: "bob", channel: "messaging:two")
            try await server.withBot(
                bot, channels: ["messaging:one", "messaging:two"], metricsFactory: PrometheusMetricsFactory(registry: registry)
            ) { _ in
                server.server.injectFault(InjectedFault(pathContains: "/event", status: 503, count: 2))
                let first = try await ann.send(text: "thinking first")
                try await handled.wait { $0.count == 1 }
                let second = try await ann.send(text: "second")
                let other = try await bob.send(text: "other")
                #expect(try await reply(to: first, by: ann) == "re: thinking first")
                #expect(try await reply(to: second, by: ann) == "re: second")
                #expect(try await reply(to: other, by: bob) == "re: other")
                let order = handled.all
                #expect(order.filter { $0 == "thinking first" }.count == 3, "run three times: \(order)")
                #expect(order.firstIndex(of: "second")! > order.lastIndex(of: "thinking first")!, "the channel's next message waited: \(order)")
                #expect(order.firstIndex(of: "other")! < order.lastIndex(of: "thinking first")!, "the other channel went on: \(order)")
                let samples = MetricSamples(registry.emitToString())
                #expect(samples["chatbotkit_handler_retries_total", ["bot": "keeper"]] == 2)
                try await Task.sleep(for: .milliseconds(200))
                let stored = try await ann.client.queryChannel("messaging:one").messages.filter { $0.user?.id == "keeper" }
                #expect(stored.count == 2, "one reply per message, none doubled by the runs")
            }
            #expect(errors.all.isEmpty, "onError hears nothing of failures that passed: \(errors.all)")
        }
    }
}

/// The text of keeper's first reply to `message` (found by its deterministic id), once it is there.
func reply(to message: Message, by user: TestUser, timeout: Duration = .seconds(20)) async throws -> String {
    let id = BotContext.replyId(bot: "keeper", messageId: message.id, index: 0)
    var text = ""
    try await eventually("keeper replied to \(message.text)", timeout: timeout) {
        guard let reply = try? await user.client.getMessage(id) else { return false }
        text = reply.text
        return true
    }
    return text
}
