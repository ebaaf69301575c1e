import ChatModels
import Foundation

extension ChatClient {
    /// Carries out `plan` on this client's server (it needs the app secret, to act as each
    /// user): makes its users and memberships, then makes each call in order. Each replayed
    /// message gets the recorded id with `-idSuffix` (the recorded id itself when the suffix is
    /// empty), and edits, reactions, deletions, threads and quotes follow it.
    ///
    /// With `speed` above 0 it waits between calls as long as the recorded events were apart,
    /// divided by `speed`; at 0 it makes them one after the other. `onStep` hears of each call
    /// made, with the id of the message it acted on. A call the server refuses stops the replay
    /// with an error naming the capture's line and how far it got.
    public func replay(
        _ plan: ReplayPlan, idSuffix: String, speed: Double = 0, onStep: @Sendable (ReplayPlan.Step, String) -> Void = { _, _ in }
    ) async throws {
        if !plan.users.isEmpty { _ = try await upsertUsers(plan.users) }
        for membership in plan.memberships { try await join(membership.cid, as: membership.userId) }
        let replayed = { (recorded: String) in ReplayPlan.replayedId(of: recorded, suffix: idSuffix) }
        var previous: Date?
        for (index, step) in plan.steps.enumerated() {
            if speed > 0, let at = step.recordedAt {
                if let previous, at > previous { try await Task.sleep(for: .seconds(at.timeIntervalSince(previous) / speed)) }
                previous = at
            }
            let messageId: String
            do {
                messageId = try await perform(step, replayed)
            } catch {
                let cause = error as? ChatClientError
                throw ChatClientError(
                    code: cause?.code ?? .api,
                    message: "line \(step.line) of the capture could not be replayed (\(index) of \(plan.steps.count) calls were): "
                        + (cause?.message ?? "\(error)"),
                    streamCode: cause?.streamCode, httpStatus: cause?.httpStatus)
            }
            onStep(step, messageId)
        }
    }

    /// Makes one step's call; returns the id of the message it acted on.
    private func perform(_ step: ReplayPlan.Step, _ replayed: (String) -> String) async throws -> String {
        switch step.action {
        case .send(let id, let text, let attachments, let parentId, let quotedId, let showInChannel, let mentioned, let isSilent, let extraData):
            let message = OutgoingMessage(
                id: replayed(id), text: text, attachments: attachments.map(AnyAttachmentPayload.init(json:)), parentId: parentId.map(replayed),
                quotedMessageId: quotedId.map(replayed), showInChannel: showInChannel, mentionedUserIds: mentioned, isSilent: isSilent,
                extraData: extraData)
            return try await sendMessage(message, to: step.cid, as: step.userId).id
        case .edit(let id, let text, let attachments, let extraData):
            return try await updateMessage(
                replayed(id), text: text, attachments: attachments.map(AnyAttachmentPayload.init(json:)), extraData: extraData, as: step.userId
            ).id
        case .delete(let id, let hard):
            return try await deleteMessage(replayed(id), hard: hard).id
        case .react(let id, let type, let score, let extraData):
            _ = try await sendReaction(type, to: replayed(id), score: score, extraData: extraData, as: step.userId)
            return replayed(id)
        case .unreact(let id, let type):
            try await deleteReaction(type, from: replayed(id), as: step.userId)
            return replayed(id)
        }
    }
}
