import ChatModels
import Foundation
import GRDB
import Hummingbird

extension PollRoutes {
    /// The poll event `type` in the channel of each message that carries the poll, logged for
    /// `/sync`: the message and the poll as everyone sees them (the poll as the message renders
    /// it), and the vote when there is one (without its voter on an anonymous poll).
    static func events(
        _ type: String, of poll: StoredPoll, vote: StoredPollVote? = nil, renderer: Renderer, at now: Date, _ db: Database
    ) throws -> [PendingEvent] {
        let carriers = try PollsTable.messages(carrying: poll.id, db)
        guard !carriers.isEmpty else { return [] }
        let users = try UsersTable.fetch(db, ids: vote.map { [$0.userId] } ?? [])
        let showingVoter = poll.data["voting_visibility"]?.stringValue != "anonymous"
        return try carriers.map { message in
            let rendered = try renderer.messages([message], viewer: nil, in: db)[0]
            var event = DevServerState.event(type, message.cid, at: now)
            event["message_id"] = .string(message.id)
            event["message"] = .object(rendered)
            event["poll"] = rendered["poll"]
            if let vote {
                event["poll_vote"] = .object(renderer.vote(vote, users: users, showingVoter: showingVoter))
                if showingVoter { event["user"] = .object(renderer.user(id: vote.userId, from: users)) }
            }
            try DevServerState.log(db, event, cid: message.cid, at: now)
            return PendingEvent(cid: message.cid, event: event)
        }
    }
}
