import ChatBotKit
import ChatBotKitAI
import ChatBotKitConfiguration
import ChatBotKitTesting
import Foundation
import Testing
import WorkoutBot

/// Questions for the workout bot, through a real model server (llama-cpp-python with a tiny
/// random model): the answer streams with the week's summary card; without a model, the bot
/// says how to configure one.
@Suite(.serialized) struct WorkoutQuestionTests {
    static let question = "@workout-bot how far did I run this week, and am I on track for my goal?"

    @Test func theToolsDeclaredSchemasAgreeWithTheirArguments() throws {
        let store = try WorkoutStore(url: try ScratchFolder().url.appendingPathComponent("workouts.sqlite"))
        let tools = try WorkoutBot.assistant(model: OpenAICompatibleModel(url: URL(string: "http://127.0.0.1:9/v1")!, model: "x"), store: store).tools
        #expect(tools.tools.map(\.name) == ["week_totals", "recent_workouts"])
        for tool in tools.tools {
            #expect(tool.definition.parameters["additionalProperties"] == false)
        }
        #expect(try WorkoutBot.toolSchemaDifferences().isEmpty)
    }

    @Test func aQuestionIsAnsweredWithTheWeeksCardThroughTheModel() async throws {
        let data = try ScratchFolder()
        let store = try WorkoutStore(url: data.url.appendingPathComponent("workouts.sqlite"))
        let model = try await TestModelServer.start()
        defer { model.stop() }
        var assistant = try WorkoutBot.assistant(model: OpenAICompatibleModel(url: model.url, model: model.model), store: store, maxTokens: 200)
        // The tiny model's choices are random: the first rounds are made to call the week's
        // totals. Its arguments are random too (`{"weeks_ago": 88746154}`, say): each refusal goes
        // back to it as the tool's error, as with any model, and it tries again.
        assistant.settings.toolChoices = Array(repeating: .function("week_totals"), count: 6) + [.none]
        assistant.settings.maximumRounds = 7
        let bot = WorkoutBot.make(name: "workout", user: User(id: "workout-bot"), store: store, assistant: assistant)
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                _ = try await ann.send(WorkoutBotTests.run)
                let asked = try await ann.send(text: Self.question)
                try await eventually("the answer is complete", timeout: .seconds(120)) {
                    let replies = try await ann.replies(to: asked, from: "workout-bot", timeout: .seconds(60))
                    return replies.last?.extraData["generating"]?.boolValue == false
                }
                let answer = try #require(try await ann.replies(to: asked, from: "workout-bot").last)
                #expect(answer.extraData["ai_generated"]?.boolValue == true)
                let card = try #require(answer.attachments(payloadType: WorkoutSummaryPayload.self).first?.payload)
                #expect(card.userId == "ann")
                #expect(card.count == 1 && card.distanceMeters == 5_200)
            }
        }
    }

    @Test func withoutAModelAQuestionIsToldHowToConfigureOne() async throws {
        let data = try ScratchFolder()
        let entry = try botEntry("name: workout\nkind: workout\nuser: workout-bot\nchannels: [messaging:general]")
        let bot = try WorkoutBot.makeBot(entry, environment: data.environment)
        try await TestChatServer.withServer { server in
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let asked = try await ann.send(text: Self.question)
                let reply = try #require(try await ann.replies(to: asked, from: "workout-bot").last)
                #expect(reply.text == WorkoutBot.noModelHelp)
            }
        }
    }

    @Test func aBotsOwnLLMOverridesTheTopsAndAWrongKeyIsLocated() throws {
        let yaml = """
            server: { api_key: key, api_secret: a-secret-of-at-least-32-bytes-long }
            llm: { url: "http://127.0.0.1:11434/v1", model: llama3.2, api_key: top-key }
            bots:
              - name: workout
                kind: workout
                channels: [messaging:general]
                llm: { model: qwen2.5 }
            """
        let configuration = try BotsConfiguration.parse(yaml)
        let environment = BotKindEnvironment(dataDirectory: FileManager.default.temporaryDirectory, llm: configuration.llm)
        let settings = try #require(try environment.model(for: configuration.bots[0]))
        #expect(settings.url.absoluteString == "http://127.0.0.1:11434/v1")
        #expect(settings.model == "qwen2.5")
        #expect(settings.apiKey?.value == "top-key")
        #expect {
            _ = try BotsConfiguration.parse("server: { api_key: k, api_secret: a-secret-of-at-least-32-bytes-long }\nllm:\n  url: http://h/v1\n  modle: x\nbots: []")
        } throws: { error in
            "\(error)".contains("bots.yaml:4:3") && "\(error)".contains("modle")
        }
        let off = try BotsConfiguration.parse("server: { api_key: k, api_secret: a-secret-of-at-least-32-bytes-long }\nllm: { url: '', model: x }\nbots: []")
        #expect(off.llm == nil)
    }
}
