import ChatBotKit
import ChatBotKitAI
import ChatBotKitTesting
import Foundation
import Testing
@testable import WorkoutBot

/// The code of the AI assistants article (Sources/ChatBotKit/ChatBotKit.docc/AIAssistants.md),
/// run on the dev server against a real model server (llama-cpp-python, a tiny random model):
/// DocumentationTests holds the article to these lines.
@Suite(.serialized) struct AIAssistantsArticleTests {
    @Test func theArticlesCoachAnswersWhoMentionsItStreamed() async throws {
        let modelServer = try await TestModelServer.start()
        defer { modelServer.stop() }
        let (modelURL, modelName) = (modelServer.url, modelServer.model)
        let store = try WorkoutStore(url: try ScratchFolder().url.appendingPathComponent("workouts.sqlite"))

        let model = OpenAICompatibleModel(url: modelURL, model: modelName)  // e.g. Ollama: http://127.0.0.1:11434/v1, "llama3.2"
        var tools = ToolBox()
        try tools.add(WeekTotals(store: store))
        let assistant = Assistant(model: model, tools: tools, settings: .init(systemPrompt: "You are the workout bot."))

        let bot = Bot(name: "coach")
        bot.on(where: { $0.mentionedUsers.contains { $0.id == "coach" } }) { context in
            try await assistant.answer(context)
        }

        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let ignored = try await ann.send(text: "no one is mentioned")
                let asked = try await ann.client.sendMessage(
                    OutgoingMessage(text: "@coach how far did I run?", mentionedUserIds: ["coach"]), to: "messaging:general")
                try await eventually("the answer is complete", timeout: .seconds(120)) {
                    let replies = try await ann.replies(to: asked, from: bot.user.id, timeout: .seconds(60))
                    return replies.last?.extraData["generating"]?.boolValue == false
                }
                let answer = try #require(try await ann.replies(to: asked, from: bot.user.id).last)
                #expect(answer.extraData["ai_generated"]?.boolValue == true)
                // One answer since the message that mentions no one: the one to the mention.
                #expect(try await ann.replies(to: ignored, from: bot.user.id).map(\.id) == [answer.id])
            }
        }
    }

    @Test func anyTextStreamsIntoOneReply() async throws {
        let (somePieces, pieces) = AsyncThrowingStream.makeStream(of: String.self)
        let bot = Bot(name: "echo")
        bot.onMessage { context in
            try await context.streamReply { reply in
                for try await piece in somePieces { reply.append(piece) }
            }
        }
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let asked = try await ann.send(text: "say something")
                for piece in ["Hello", ", ", "world"] { pieces.yield(piece) }
                pieces.finish()
                try await eventually("the reply is complete", timeout: .seconds(30)) {
                    let replies = try await ann.replies(to: asked, from: bot.user.id)
                    return replies.last?.text == "Hello, world" && replies.last?.extraData["generating"]?.boolValue == false
                }
            }
        }
    }
}
