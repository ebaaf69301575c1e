import ChatBotKitTesting
import ChatClient
import ChatModels
import Foundation
import Testing

@Suite("Polls against the dev server")
struct PollTests {
    @Test("a poll is created, sent, voted on and answered, counted, closed and deleted")
    func lifecycle() async throws {
        try await TestChatServer.withServer { server in
            let admin = server.client(as: "admin")
            try await admin.upsertUsers([User(id: "ann"), User(id: "bob"), User(id: "coach")])
            for user in ["ann", "bob", "coach"] { try await admin.join("messaging:club", as: user) }
            let sent = try await admin.channel("messaging:club").sendPoll(
                name: "Which distance?", options: ["5k", "10k", "half"], text: "Vote!", maximumVotes: 2, allowsAnswers: true, as: "coach")
            let poll = try #require(sent.poll)
            #expect(sent.text == "Vote!" && poll.name == "Which distance?" && poll.options.map(\.text) == ["5k", "10k", "half"])
            #expect(poll.maximumVotes == 2 && poll.allowsAnswers && !poll.isSingleChoice && !poll.isAnonymous && poll.leadingOptions.isEmpty)
            let (fiveK, tenK, half) = (poll.options[0].id, poll.options[1].id, poll.options[2].id)

            let ann = server.userClient("ann")
            let first = try await ann.castPollVote(on: sent.id, poll: poll.id, option: tenK)
            try await ann.castPollVote(on: sent.id, poll: poll.id, option: half)
            try await admin.castPollVote(on: sent.id, poll: poll.id, option: tenK, as: "bob")
            let answer = try await ann.answerPoll(on: sent.id, poll: poll.id, text: "Marathon, one day")
            #expect(answer.isAnswer && answer.answerText == "Marathon, one day" && answer.optionId == nil)
            await expectRefused(4, "user ann already has 2 of the 2 votes poll \(poll.id) allows; remove one first") {
                try await ann.castPollVote(on: sent.id, poll: poll.id, option: fiveK)
            }

            let counted = try await ann.poll(poll.id)
            #expect(counted.voteCount == 3 && counted.voteCountsByOption == [tenK: 2, half: 1] && counted.answersCount == 1)
            #expect(counted.leadingOptions.map(\.text) == ["10k"] && counted.ownVotes.count == 3)
            #expect(counted.latestVotesByOption[tenK]?.map(\.userId) == ["bob", "ann"], "newest first")
            #expect(try await ann.getMessage(sent.id).poll?.voteCount == 3)
            #expect(try await admin.pollVotes(poll.id, optionId: tenK).compactMap(\.userId).sorted() == ["ann", "bob"])
            #expect(try await admin.pollVotes(poll.id, answers: true).map(\.answerText) == ["Marathon, one day"])
            #expect(try await admin.pollVotes(poll.id, userId: "bob").count == 1)

            try await ann.removePollVote(first.id, on: sent.id, poll: poll.id)
            #expect(try await admin.poll(poll.id).voteCountsByOption == [tenK: 1, half: 1])
            await expectRefused(17, "only its creator may change it") { try await ann.closePoll(poll.id) }
            let closed = try await admin.closePoll(poll.id, as: "coach")
            #expect(closed.isClosed && closed.leadingOptions.map(\.text) == ["10k", "half"], "a tie leads together")
            await expectRefused(4, "poll \(poll.id) is closed for voting") { try await ann.castPollVote(on: sent.id, poll: poll.id, option: fiveK) }
            let renamed = try await admin.updatePoll(poll.id, set: ["name": "Distance?", "season": "spring"], as: "coach")
            #expect(renamed.name == "Distance?" && renamed.extraData["season"] == "spring")

            try await admin.deletePoll(poll.id)
            await expectRefused(16, "poll \(poll.id) does not exist") { try await admin.poll(poll.id) }
            let after = try await admin.getMessage(sent.id)
            #expect(after.poll == nil && after.pollId == poll.id, "the message stays, without its poll")
        }
    }

    @Test("an anonymous poll's votes hide their voters from others, not from the voter")
    func anonymous() async throws {
        try await TestChatServer.withServer { server in
            let admin = server.client(as: "admin")
            try await admin.upsertUsers([User(id: "ann"), User(id: "coach")])
            for user in ["ann", "coach"] { try await admin.join("messaging:club", as: user) }
            let sent = try await admin.channel("messaging:club").sendPoll(name: "Tired?", options: ["yes", "no"], isAnonymous: true, as: "coach")
            let poll = try #require(sent.poll)
            #expect(poll.isAnonymous)
            let vote = try await server.userClient("ann").castPollVote(on: sent.id, poll: poll.id, option: poll.options[0].id)
            #expect(vote.userId == "ann", "the voter sees its own vote")
            let seen = try await admin.poll(poll.id, as: "coach")
            #expect(seen.voteCount == 1 && seen.latestVotesByOption[poll.options[0].id]?.first?.userId == nil)
            #expect(try await admin.pollVotes(poll.id).map(\.userId) == [nil])
        }
    }
}
