import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

/// Records the poll votes that pass, as a user's middleware would see them.
private struct PollLog: BotMiddleware {
    let recorder: Recorder<String>
    func handle(_ message: Message, context: BotContext, next: @Sendable (Message, BotContext) async throws -> Void) async throws {
        if case .pollVote(_, _, let change) = context.trigger { recorder.record("middleware saw a vote \(change.rawValue)") }
        try await next(message, context)
    }
}

@Suite("Polls: a bot sends polls and hears the votes and the closing")
struct PollVoteTests {
    @Test("votes cast, changed and taken back reach onPollVote once each, in order, through middleware; the bot's own vote does not; closing reaches onPollClosed")
    func votesAndClosing() async throws {
        try await TestChatServer.withServer { server in
            let recorder = Recorder<String>()
            let bot = Bot(name: "coach")
            bot.use(PollLog(recorder: recorder))
            bot.command("plan") { _, context in
                let sent = try await context.sendPoll("Group run: which day?", options: ["Sat", "Sun"], isSingleChoice: true)
                recorder.record("sent \(sent.poll?.name ?? "no poll") with \(sent.poll?.options.map(\.text) ?? [])")
            }
            bot.onPollVote { vote, context in
                guard case .pollVote(_, let poll, let change) = context.trigger else { return }
                let option = vote.optionId.flatMap(poll.option)?.text ?? "?"
                recorder.record("\(vote.userId ?? "someone") \(change.rawValue) \(option) on \(context.message.text); \(poll.voteCount) votes")
            }
            bot.onPollClosed { poll, context in
                try await context.reply(text: "\(poll.leadingOptions.map(\.text).joined(separator: " or ")) it is!")
                recorder.record("closed: \(poll.leadingOptions.map(\.text))")
            }
            let ann = try await TestUser.join(server, id: "ann", channel: "messaging:general")
            try await server.withBot(bot, channels: ["messaging:general"]) { _ in
                let command = try await ann.send(text: "/plan")
                try await recorder.wait { $0.contains("sent Group run: which day? with [\"Sat\", \"Sun\"]") }
                let message = try #require(try await ann.replies(to: command, from: "coach").first)
                let poll = try #require(message.poll)
                #expect(message.pollId == poll.id && poll.isSingleChoice && poll.createdById == "coach")
                let (sat, sun) = (poll.options[0].id, poll.options[1].id)

                let vote = try await ann.client.castPollVote(on: message.id, poll: poll.id, option: sat)
                try await recorder.wait { $0.contains { $0.hasPrefix("ann cast Sat") } }
                try await ann.client.castPollVote(on: message.id, poll: poll.id, option: sun)
                try await recorder.wait { $0.contains { $0.hasPrefix("ann changed Sun") } }
                try await server.client(as: "admin").castPollVote(on: message.id, poll: poll.id, option: sun, as: "coach")
                try await ann.client.removePollVote(vote.id, on: message.id, poll: poll.id)
                try await recorder.wait { $0.contains { $0.hasPrefix("ann removed Sun") } }
                try await server.client(as: "admin").closePoll(poll.id, as: "coach")
                try await recorder.wait { $0.contains { $0.hasPrefix("closed") } }
                try await Task.sleep(for: .milliseconds(300))
                #expect(
                    recorder.all.filter { !$0.hasPrefix("sent") } == [
                        "middleware saw a vote cast", "ann cast Sat on Group run: which day?; 1 votes",
                        "middleware saw a vote changed", "ann changed Sun on Group run: which day?; 1 votes",
                        "middleware saw a vote removed", "ann removed Sun on Group run: which day?; 1 votes",
                        "closed: [\"Sun\"]",
                    ], "the bot's own vote on Sun is counted, not handled")
                let replies = try await ann.client.queryChannel("messaging:general", messageLimit: 10).messages.map(\.text)
                #expect(replies.last == "Sun it is!")
            }
        }
    }
}
