import ChatClient
import ChatModels
import Foundation

extension BotService {
    /// An updated message: an edit, or the move (or stop) of the live location it shares
    /// (``Message/movedLocation``). Nil for a move and a bot without location handlers, which
    /// takes none.
    func updateTrigger(of event: Event) -> BotContext.Trigger? {
        guard let location = event.message?.movedLocation else { return .edit }
        guard bot.handlesLocations else { return nil }
        return .location(location, change: location.isStopped ? .stopped : .moved)
    }

    /// After a new message's handlers: the location it shares, if any, for a bot with
    /// location handlers (`.shared`; its replies get ids of their own).
    func handleSharedLocation(of message: Message, in cid: ChannelId) async {
        guard bot.handlesLocations, let location = message.sharedLocation else { return }
        let trigger = BotContext.Trigger.location(location, change: .shared)
        let context = BotContext(
            message: message, trigger: trigger, channel: client.channel(cid), bot: bot, logger: logger, replyKey: Delivery.key(trigger, message))
        await bot.handle(location, context: context)
    }
}
