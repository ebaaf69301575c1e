import ChatClient
import ChatModels
import Foundation

extension BotService {
    /// A new message: `.location(…, change: .shared)` when it shares a location and the bot
    /// has location handlers; otherwise just a new message.
    func newMessageTrigger(of event: Event) -> BotContext.Trigger {
        guard bot.handlesLocations, let location = event.message?.sharedLocation else { return .newMessage }
        return .location(location, change: .shared)
    }

    /// An updated message: an edit, or the move (or stop) of the live location it shares
    /// (``Message/movedLocation``). Nil for a move and a bot without location handlers, which
    /// takes none.
    func updateTrigger(of event: Event) -> BotContext.Trigger? {
        guard let location = event.message?.movedLocation else { return .edit }
        guard bot.handlesLocations else { return nil }
        return .location(location, change: location.isStopped ? .stopped : .moved)
    }
}
