import ChatClient
import ChatModels
import Foundation
import Tracing

extension DeliveryPipeline {
    /// A channel's worker: handles its deliveries one after the other until its mailbox is
    /// empty, each in its span and through the handler gate.
    func drainMailbox(_ cid: ChannelId) async {
        let tracer = client.tracer
        let task = HandlerGate.currentTask()
        while let delivery = mailboxes.next(in: cid) {
            let span = DeliverySpan.start(delivery, bot: bot.name, cid: cid, tracer: tracer)
            await gate.admit(task: task)
            metrics.started()
            let start = ContinuousClock.now
            if span is NoOpTracer.NoOpSpan {
                // No tracer: the two task-local values would cost more than the rest of the span.
                await settle(delivery, in: cid)
            } else {
                await DeliverySpan.$current.withValue(span) {
                    await ServiceContext.$current.withValue(span.context) { await settle(delivery, in: cid) }
                }
            }
            span.end()
            // A handler cut off by the drain deadline did not finish: the next start handles it again.
            if !Task.isCancelled {
                for observer in observers { observer.finished(delivery, in: cid) }
            }
            metrics.finished(delivery.metricsTrigger, after: ContinuousClock.now - start)
            gate.leave(task: task)
        }
    }

    /// Runs a delivery's handlers once (see ``settle(_:in:)`` for the runs after a failure).
    func handle(_ delivery: Delivery, in cid: ChannelId) async {
        switch delivery.work {
        case .truncation(let truncation):
            await bot.handle(truncation, channel: client.channel(cid), logger: logger)
        case .userMessagesDeletion(let deletion):
            await bot.handle(deletion, channel: client.channel(cid), logger: logger)
        case .event(let event):
            await bot.handle(event, channel: client.channel(cid), logger: logger, postKey: delivery.key)
        case .addition(let event):
            await bot.handleAddition(event, channel: client.channel(cid), logger: logger, postKey: delivery.key)
        case .schedule(let name, let scheduledAt, let isMadeUp):
            await bot.runSchedule(name, at: scheduledAt, isMadeUp: isMadeUp, channel: client.channel(cid), logger: logger, postKey: delivery.key)
        case .conversationTimeout(let key, let expiresAt):
            await bot.sayTimedOut(key, expiresAt: expiresAt, channel: client.channel(cid), logger: logger, postKey: delivery.key)
        case .message(let trigger, let message):
            let context = BotContext(
                message: message, trigger: trigger, channel: client.channel(cid), bot: bot, logger: logger, replyKey: delivery.key)
            switch trigger {
            case .newMessage:
                await bot.handle(message, context: context)
                await handleSharedLocation(of: message, in: cid)
            case .edit: await bot.handleUpdate(context: context)
            case .undeletion: await bot.handleUndeletion(context: context)
            case .deletion(let isHardDelete): await bot.handle(MessageDeletion(message: message, isHardDelete: isHardDelete), context: context)
            case .reaction(let reaction, let isRemoved): await bot.handle(reaction, isRemoved: isRemoved, context: context)
            case .reminderDue(let reminder): await bot.handle(reminder, context: context)
            case .pollVote(let vote, _, _): await bot.handle(vote, context: context)
            case .pollClosed(let poll): await bot.handle(closed: poll, context: context)
            case .location(let location, _): await bot.handle(location, context: context)
            }
        }
    }

    /// After a new message's handlers: the location it shares, if any, for a bot with
    /// location handlers (`.shared`; its replies get ids of their own).
    private func handleSharedLocation(of message: Message, in cid: ChannelId) async {
        guard bot.handlesLocations, let location = message.sharedLocation else { return }
        let trigger = BotContext.Trigger.location(location, change: .shared)
        let context = BotContext(
            message: message, trigger: trigger, channel: client.channel(cid), bot: bot, logger: logger, replyKey: Delivery.key(trigger, message))
        await bot.handle(location, context: context)
    }
}
