import ChatModels
import Foundation

extension BotService {
    /// A user deleted with its messages (`user.deleted` with `mark_messages_deleted`), taken as
    /// the deletion of its messages in each channel this node handles. The event names no
    /// channel, and a service may send it without a `user.messages.deleted` for each channel;
    /// where that came too, both make the same delivery (channel, user, time) and it is handled
    /// once. Where the user posted nothing, the handlers find nothing to forget.
    func consumeUserDeletion(_ event: Event, slots: AsyncSlots, workers: inout ThrowingDiscardingTaskGroup<any Error>) async {
        guard event.extraData["mark_messages_deleted"]?.boolValue == true, let user = event.user, user.id != bot.user.id,
            let deletedAt = event.createdAt
        else { return }
        for cid in handledChannels() {
            let deletion = UserMessagesDeletion(cid: cid, user: user, deletedAt: deletedAt, isHardDelete: event.hardDelete ?? false)
            if queueOwn(Delivery(deletion), in: cid) { await startDraining(cid, slots: slots, workers: &workers) }
        }
    }
}
