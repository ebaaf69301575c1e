import ChatClient
import ChatModels
import Foundation

extension EventAcceptance {
    /// An updated message: an edit, or the move (or stop) of the live location it shares
    /// (``Message/movedLocation``). Nil for a move and a bot without location handlers, which
    /// takes none.
    func updateTrigger(of event: Event) -> BotContext.Trigger? {
        guard let location = event.message?.movedLocation else { return .edit }
        guard bot.handlesLocations else { return nil }
        return .location(location, change: location.isStopped ? .stopped : .moved)
    }
}
