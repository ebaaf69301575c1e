import ChatLocking
import ChatModels
import Foundation
import Logging

extension TimedWork {
    /// How long after a conversation's timeout the bot says so: an answer sent just in time may
    /// still be on its way, and the server's clock, which the timeout is measured on, may be a
    /// little ahead of this machine's.
    static let conversationTimeoutGrace: TimeInterval = 1

    /// Queues, in its channel, each conversation whose time for an answer runs out while the bot
    /// runs, for the bot to tell the person it stopped waiting (see ``Bot/sayTimedOut``): only
    /// conversation types with an ``Conversation/expiredText``, and only in the channels this
    /// node handles. Those that ran out while the bot was stopped are left to the person's next
    /// message, which is then told.
    func sayConversationTimeouts() async {
        let since = Date()
        var failing = false
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled {
                let told = bot.routes.withLock { $0.conversations }.filter { $0.value.expiredText != nil }
                let until = Date().addingTimeInterval(-Self.conversationTimeoutGrace)
                if !told.isEmpty, since < until, !isStopped {
                    do {
                        let timedOut = try await bot.conversationStore.conversations(of: bot.name, expiring: since..<until)
                        failing = false
                        let channels = Set(channels())
                        for saved in timedOut where told[saved.name] != nil && channels.contains(saved.key.channel) {
                            let cid = saved.key.channel
                            await pipeline.queueOwn(Delivery(timeoutOf: saved.key, at: saved.expiresAt), in: cid, workers: &group)
                        }
                    } catch {
                        if !failing {
                            logger.warning("Bot \(bot.name) cannot look for conversations that timed out: \(error); it tries again")
                        }
                        failing = true
                    }
                }
                try? await Task.sleep(for: Self.conversationTimeoutInterval(told.values.map(\.timeout).min()))
            }
        }
    }

    /// How often to look: a quarter of the shortest timeout, between 50 ms and 5 s.
    static func conversationTimeoutInterval(_ shortest: Duration?) -> Duration {
        guard let shortest else { return .seconds(5) }
        return min(max(shortest / 4, .milliseconds(50)), .seconds(5))
    }
}
