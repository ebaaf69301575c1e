import ChatBotKit
import ChatBotKitAI
import ChatBotKitTesting
import ChatDevServer
import ChatModels
import Foundation
import Testing

/// Streamed replies end to end: the dev server, a bot, a real model server, and a user watching.
@Suite(.serialized) struct StreamedReplyTests {
    let cid: ChannelId = "messaging:ai"

    func assistantBot(maximumTokens: Int, updatesPerSecond: Double = 3) async throws -> Bot {
        let assistant = Assistant(
            model: try await tinyModel(), settings: Assistant.Settings(maximumTokens: maximumTokens, seed: 3),
            replyOptions: StreamedReplyOptions(updatesPerSecond: updatesPerSecond))
        let bot = Bot(name: "assistant", user: User(id: "assistant-bot", name: "Assistant"))
        bot.onMessage { context in try await assistant.answer(context) }
        return bot
    }

    @Test func aReplyAppearsAtOnceMarkedAIGeneratedThenThinksGeneratesAndClears() async throws {
        try await TestChatServer.withServer { server in
            try await server.withBot(try await assistantBot(maximumTokens: 40), channels: [cid]) { _ in
                let ann = try await TestUser.join(server, id: "ann", channel: cid)
                try await watching(server, as: "ann", cid) { watcher in
                    _ = try await ann.send(text: "How far did I run?")
                    try await watcher.waitFor("the reply's indicator is cleared") { $0.contains { $0.type == .aiIndicatorClear } }
                    let id = try #require(watcher.replyId)
                    let events = watcher.events(ofReply: id)
                    let first = try #require(events.first?.event)
                    #expect(first.type == .messageNew && first.message?.text == "" && first.message?.extraData["generating"]?.boolValue == true)
                    let states = indicatorStates(events)
                    #expect(states.first == AIState.thinking.rawValue)
                    #expect(states.contains(AIState.generating.rawValue))
                    #expect(states.last == "clear")
                    let final = try await ann.client.getMessage(id)
                    #expect(!final.text.isEmpty)
                    #expect(final.extraData["ai_generated"]?.boolValue == true)
                    #expect(final.extraData["generating"]?.boolValue == false)
                    #expect(final.extraData["ai_stopped"] == nil)
                    // Usage is counted: the tokens of the answer, as the server reported them.
                    #expect((final.extraData["ai_usage"]?["completion_tokens"]?.intValue ?? 0) > 0)
                    // The last update a watcher saw carries the full text.
                    let lastText = events.last { $0.event.type == .messageUpdated }?.event.message?.text
                    #expect(lastText == final.text)
                }
            }
        }
    }

    @Test func partialUpdatesStayWithinTheRateWhileTheModelStreams2000Tokens() async throws {
        try await TestChatServer.withServer { server in
            try await server.withBot(try await assistantBot(maximumTokens: 2000, updatesPerSecond: 3), channels: [cid]) { _ in
                let ann = try await TestUser.join(server, id: "ann", channel: cid)
                try await watching(server, as: "ann", cid) { watcher in
                    _ = try await ann.send(text: "Tell me everything.")
                    try await watcher.waitFor("the reply is done", timeout: .seconds(180)) { $0.contains { $0.type == .aiIndicatorClear } }
                    let id = try #require(watcher.replyId)
                    let updates = watcher.events(ofReply: id).filter { $0.event.type == .messageUpdated }
                    // All but the final write are partial updates, at most 3 a second: in any
                    // window of a second of the service's clock (when it applied them; a busy
                    // watcher may get several at once), at most 3 of them.
                    let times = try updates.dropLast().map { try #require($0.event.message?.updatedAt) }
                    for (index, start) in times.enumerated() {
                        let inASecond = times[index...].prefix { $0.timeIntervalSince(start) < 1 }.count
                        #expect(inASecond <= 3, "\(inASecond) partial updates within a second")
                    }
                    #expect(updates.count >= 2, "the text was shown while it streamed")
                    let final = try await ann.client.getMessage(id)
                    #expect((final.extraData["ai_usage"]?["completion_tokens"]?.intValue ?? 0) >= 1600)
                }
            }
        }
    }

    @Test func aStopHalfwayCancelsTheModelRequestAndKeepsTheTextSoFar() async throws {
        try await TestChatServer.withServer { server in
            let bot = try await assistantBot(maximumTokens: 3000)
            try await server.withBot(bot, channels: [cid]) { _ in
                let ann = try await TestUser.join(server, id: "ann", channel: cid)
                try await watching(server, as: "ann", cid) { watcher in
                    _ = try await ann.send(text: "Go on and on.")
                    try await watcher.waitFor("text arrives") { events in
                        events.contains { $0.type == .messageUpdated && !($0.message?.text ?? "").isEmpty }
                    }
                    let stoppedAt = ContinuousClock.now
                    // What Stream's stop button sends: the channel, no message id.
                    try await ann.client.sendEvent(EventType.aiIndicatorStop.rawValue, to: cid, as: "ann")
                    try await watcher.waitFor("the stopped reply is cleared", timeout: .seconds(20)) { $0.contains { $0.type == .aiIndicatorClear } }
                    #expect(ContinuousClock.now - stoppedAt < .seconds(10))
                    let id = try #require(watcher.replyId)
                    let final = try await ann.client.getMessage(id)
                    #expect(final.extraData["ai_stopped"]?.boolValue == true)
                    #expect(final.extraData["generating"]?.boolValue == false)
                    #expect(!final.text.isEmpty)
                    #expect(bot.generations.count == 0)
                    // The model request was cancelled: the server, which answers one request at a
                    // time, answers a new one at once instead of finishing 3,000 tokens first.
                    let started = ContinuousClock.now
                    let model = try await tinyModel()
                    var pieces = 0
                    for try await event in try await model.stream(ModelRequest(messages: [.user("hi")], maxTokens: 5)) {
                        if case .text = event { pieces += 1 }
                    }
                    #expect(ContinuousClock.now - started < .seconds(15))
                    #expect(pieces > 0)
                }
            }
        }
    }

    @Test func aRateLimitStormStillEndsWithTheFullText() async throws {
        try await TestChatServer.withServer(configure: { configuration in
            configuration.rateLimits[.updateMessagePartial] = 2
            configuration.rateLimitWindow = .seconds(2)
        }) { server in
            try await server.withBot(try await assistantBot(maximumTokens: 150, updatesPerSecond: 10), channels: [cid]) { _ in
                let ann = try await TestUser.join(server, id: "ann", channel: cid)
                try await watching(server, as: "ann", cid) { watcher in
                    _ = try await ann.send(text: "Storm?")
                    try await watcher.waitFor("the reply is done", timeout: .seconds(120)) { $0.contains { $0.type == .aiIndicatorClear } }
                    let id = try #require(watcher.replyId)
                    let final = try await ann.client.getMessage(id)
                    #expect(final.extraData["generating"]?.boolValue == false)
                    #expect((final.extraData["ai_usage"]?["completion_tokens"]?.intValue ?? 0) >= 100)
                    #expect(!final.text.isEmpty)
                }
            }
        }
    }

    @Test func aModelThatCannotBeReachedEndsInAnErrorTheUserUnderstands() async throws {
        try await TestChatServer.withServer { server in
            let assistant = Assistant(model: OpenAICompatibleModel(url: URL(string: "http://127.0.0.1:9/v1")!, model: "none"))
            let bot = Bot(name: "assistant", user: User(id: "assistant-bot"))
            bot.onMessage { context in try await assistant.answer(context) }
            try await server.withBot(bot, channels: [cid]) { _ in
                let ann = try await TestUser.join(server, id: "ann", channel: cid)
                try await watching(server, as: "ann", cid) { watcher in
                    _ = try await ann.send(text: "Anyone?")
                    try await watcher.waitFor("the error state") { events in
                        events.contains { $0.type == .aiIndicatorUpdate && $0.extraData["ai_state"]?.stringValue == AIState.error.rawValue }
                    }
                    let id = try #require(watcher.replyId)
                    let final = try await ann.client.getMessage(id)
                    #expect(final.text == "Sorry, I could not answer: the AI service could not be reached. The bot's owner should check its llm url.")
                    #expect(final.extraData["ai_error"]?["message"]?.stringValue?.contains("could not be reached") == true)
                    #expect(final.extraData["generating"]?.boolValue == false)
                }
            }
        }
    }
}
