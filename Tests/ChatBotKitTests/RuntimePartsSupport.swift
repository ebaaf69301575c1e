@testable import ChatBotKit
import ChatBotKitTesting
import ChatClient
import ChatLocking
import ChatModels
import Foundation
import Logging

/// What a ``DeliveryObserver`` heard, in order: "took <key or ->", "passed", "own <key>",
/// "finished <key>".
final class DeliveryLog: DeliveryObserver {
    private let entries = Locked<[String]>([])

    var all: [String] { entries.withLock { $0 } }

    func took(_ event: Event, as delivery: Delivery?) { entries.withLock { $0.append("took \(delivery?.key ?? "-")") } }
    func passed(_ event: Event) { entries.withLock { $0.append("passed") } }
    func queuedOwn(_ delivery: Delivery, in cid: ChannelId) { entries.withLock { $0.append("own \(delivery.key)") } }
    func finished(_ delivery: Delivery, in cid: ChannelId) { entries.withLock { $0.append("finished \(delivery.key)") } }
}

extension DeliveryPipeline {
    /// A pipeline for `bot` replying through a client of `server`, handling `channels` (for a
    /// deleted user's messages and timed work).
    static func forTest(
        _ bot: Bot, on server: TestChatServer, maximumConcurrentChannels: Int = 8, drainDeadline: Duration = .seconds(5),
        observers: [any DeliveryObserver] = [], channels: [ChannelId] = []
    ) -> DeliveryPipeline {
        let client = server.client(as: bot.user.id)
        return DeliveryPipeline(
            bot: bot, client: client, logger: Logger(label: "chatbotkit.test.\(bot.name)"),
            metrics: BotMetrics(bot: bot.name, factory: client.metricsFactory), maximumConcurrentChannels: maximumConcurrentChannels,
            drainDeadline: drainDeadline, observers: observers, channels: { channels })
    }
}

/// `message.new` of a message `id` (its text too) by `user` in `cid`, at `date`.
func newMessage(_ id: String, in cid: ChannelId, by user: String = "ann", at date: Date = Date()) -> Event {
    Event(type: .messageNew, createdAt: date, cid: cid, message: Message(id: id, cid: cid, text: id, user: User(id: user), createdAt: date))
}
