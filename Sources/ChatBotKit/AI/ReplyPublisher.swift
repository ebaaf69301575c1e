import ChatClient
import ChatLocking
import ChatModels
import Logging

/// Writes a streamed reply's text while it arrives: at most one partial update per interval,
/// each with the newest text (the updates in between are coalesced away), none while the bot's
/// rate budget or the service's quota would make it wait, and the indicator's state changes in
/// order with them. Failed partial updates are skipped: the final write carries the whole text.
struct ReplyPublisher: Sendable {
    let client: ChatClient
    let messageId: String
    let cid: ChannelId
    let userId: String
    let interval: Duration
    let logger: Logger

    /// Publishes until the writer closes; returns how many partial updates were sent.
    func run(_ writer: StreamedReplyWriter, closing: StopSignal) async -> Int {
        var announced = AIState.thinking
        var published = 0
        var updates = 0
        var nextSlot = ContinuousClock.now
        while let change = await writer.nextChange() {
            if change.state != announced {
                await indicate(change.state)
                announced = change.state
            }
            guard change.version != published else { continue }
            let wait = nextSlot - .now
            if wait > .zero, await closing.wait(atMost: wait) { break }
            // While budget or quota would hold the update, the text goes on piling up.
            while client.wouldWaitForQuota(of: .updateMessagePartial) {
                if await closing.wait(atMost: interval) { return updates }
            }
            let latest = writer.latest()
            if latest.state != announced {
                await indicate(latest.state)
                announced = latest.state
            }
            do {
                try await client.partialUpdateMessage(
                    messageId, set: ["text": .string(latest.text), "generating": true], as: userId, skipEnrichURL: true)
                updates += 1
                published = latest.version
            } catch {
                logger.debug("A partial update of streamed reply \(messageId) was skipped: \(error)")
            }
            // Counted from when the service answered, so that watchers, who get each update a
            // little after it is made, never see more than the rate either.
            nextSlot = .now + interval
        }
        return updates
    }

    /// Sends `ai_indicator.update` with `state`; a failure is logged, never thrown (the
    /// reply's text matters more than its indicator).
    func indicate(_ state: AIState) async {
        await send(
            EventType.aiIndicatorUpdate.rawValue,
            ["ai_state": .string(state.rawValue), "message_id": .string(messageId), "cid": .string(cid.rawValue)])
    }

    /// Sends `ai_indicator.clear` for the reply.
    func clear() async {
        await send(EventType.aiIndicatorClear.rawValue, ["message_id": .string(messageId), "cid": .string(cid.rawValue)])
    }

    private func send(_ type: String, _ fields: [String: RawJSON]) async {
        do {
            try await client.sendEvent(type, to: cid, extraData: fields, as: userId)
        } catch {
            logger.debug("\(type) for streamed reply \(messageId) was not sent: \(error)")
        }
    }
}
