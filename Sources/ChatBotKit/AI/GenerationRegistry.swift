import ChatLocking
import ChatModels
import Foundation

/// The streamed replies a bot is generating right now, so that a user's `ai_indicator.stop`
/// reaches the one it means at once.
///
/// The bot's runtime calls ``stop(for:)`` when it takes the event in, before anything is
/// queued: the handler that streams the reply is busy in the channel's mailbox, and a stop
/// queued behind it would come after the reply is done.
public final class GenerationRegistry: Sendable {
    private struct Generation {
        let cid: ChannelId
        let messageId: String
        let startedAt: Date
        let signal: StopSignal
    }

    /// How far a stop's `created_at` may be before a generation's start and still stop it: the
    /// service's and the bot's clocks differ a little. An older stop is one replayed from
    /// before a restart, for an earlier attempt at the reply.
    public static let clockTolerance: TimeInterval = 2

    private let generations = Locked<[UUID: Generation]>([:])

    /// An empty registry.
    public init() {}

    /// Generations running now.
    public var count: Int { generations.withLock { $0.count } }

    /// Adds the generation of reply `messageId` in `cid`; its signal fires on a matching stop.
    func register(cid: ChannelId, messageId: String, signal: StopSignal, now: Date = Date()) -> UUID {
        let token = UUID()
        generations.withLock { $0[token] = Generation(cid: cid, messageId: messageId, startedAt: now, signal: signal) }
        return token
    }

    /// Removes a finished generation.
    func unregister(_ token: UUID) {
        generations.withLock { $0[token] = nil }
    }

    /// Stops what an `ai_indicator.stop` event names: the reply its `message_id` names, or
    /// every reply being generated in its channel (Stream's stop button names none). Other
    /// events, and stops sent before a generation started, stop nothing. Returns how many were stopped.
    @discardableResult
    public func stop(for event: Event) -> Int {
        guard event.type == .aiIndicatorStop, let cid = event.cid else { return 0 }
        let messageId = event.extraData["message_id"]?.stringValue
        let sentAt = event.createdAt
        let matching = generations.withLock { generations in
            generations.values.filter { generation in
                guard generation.cid == cid, messageId == nil || messageId == generation.messageId else { return false }
                guard let sentAt else { return true }
                return sentAt.timeIntervalSince(generation.startedAt) >= -Self.clockTolerance
            }
        }
        for generation in matching { generation.signal.fire() }
        return matching.count
    }
}
