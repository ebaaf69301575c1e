import ChatClient
import ChatModels
import Foundation
import Logging

/// One streamed reply on Stream's AI protocol, from its first post to its final text.
///
/// 1. The reply is posted at once, empty, with its deterministic id, `ai_generated: true` and
///    `generating: true`, and `ai_indicator.update` says `AI_STATE_THINKING`.
/// 2. The generation writes text; ``ReplyPublisher`` sends `AI_STATE_GENERATING` and partial
///    updates, coalesced.
/// 3. The final text is written (waiting out rate limits), with `generating: false`, then
///    `ai_indicator.clear`. A stopped reply keeps its text so far and gets `ai_stopped: true`;
///    a failed one says what went wrong and the indicator shows `AI_STATE_ERROR`.
///
/// A reply posted again (the bot restarted mid-stream, or another node took the channel) finds
/// its message already there and rewrites it: one reply, never a second or a half one.
struct StreamedReply: Sendable {
    /// The custom fields of an AI reply.
    enum Field {
        /// Set on every streamed reply (what Stream's UI kits look for).
        static let aiGenerated = "ai_generated"
        /// True while text is still coming (Stream's Android `StreamingText` reads it).
        static let generating = "generating"
        /// Set on a reply a user stopped.
        static let stopped = "ai_stopped"
        /// Set on a reply whose generation failed: `{message, detail}`.
        static let error = "ai_error"
        /// Set on a reply cut at ``StreamedReplyOptions/maximumLength``.
        static let truncated = "ai_truncated"
    }

    let context: BotContext
    let options: StreamedReplyOptions

    func run(_ generate: @escaping @Sendable (StreamedReplyWriter) async throws -> Void) async throws -> StreamedReplyResult {
        let client = context.client
        let cid = context.channel.cid
        let userId = context.bot.user.id
        let id = context.nextReplyId()
        let parentId = context.message.parentId ?? (options.inThread ? context.message.id : nil)
        var fields = options.extraData
        fields[Field.aiGenerated] = true
        fields[Field.generating] = true
        // An "already exists" answer (the reply of an earlier attempt) returns it: it is rewritten below.
        _ = try await client.sendMessage(OutgoingMessage(id: id, text: "", parentId: parentId, skipEnrichURL: true, extraData: fields), to: cid, as: userId)
        let interval = Duration.seconds(1 / max(options.updatesPerSecond, 0.01))
        let publisher = ReplyPublisher(client: client, messageId: id, cid: cid, userId: userId, interval: interval, logger: context.logger)
        await publisher.indicate(.thinking)

        let writer = StreamedReplyWriter(maximumLength: options.maximumLength)
        let stop = StopSignal()
        let closing = StopSignal()
        let token = context.bot.generations.register(cid: cid, messageId: id, signal: stop)
        defer { context.bot.generations.unregister(token) }
        async let partialUpdates = publisher.run(writer, closing: closing)
        let outcome = await Self.generation(generate, writer: writer, stop: stop)
        writer.close()
        closing.fire()
        let updates = await partialUpdates
        // Shutting down: the reply is left as it is, for the next start to write again.
        try Task.checkCancellation()

        let text = try await finish(outcome, writer: writer, messageId: id, client: client, userId: userId)
        switch outcome {
        case .completed, .stopped: await publisher.clear()
        case .failed: await publisher.indicate(.error)
        }
        return StreamedReplyResult(messageId: id, text: text, outcome: outcome, partialUpdates: updates)
    }

    /// Runs the generation until it ends or a stop comes; a stop cancels it (and the model
    /// request it makes) at once and freezes the text.
    static func generation(
        _ generate: @escaping @Sendable (StreamedReplyWriter) async throws -> Void, writer: StreamedReplyWriter, stop: StopSignal
    ) async -> StreamedReplyResult.Outcome {
        await withTaskGroup(of: StreamedReplyResult.Outcome?.self) { group in
            group.addTask {
                do {
                    try await generate(writer)
                    return .completed
                } catch {
                    return stop.isFired ? .stopped : .failed(error)
                }
            }
            group.addTask {
                guard await stop.wait() else { return nil }
                writer.freeze()
                return .stopped
            }
            while let next = await group.next() {
                guard let next else { continue }
                group.cancelAll()
                return next
            }
            return .failed(CancellationError())
        }
    }

    /// Writes the reply's last state; returns its text.
    private func finish(
        _ outcome: StreamedReplyResult.Outcome, writer: StreamedReplyWriter, messageId: String, client: ChatClient, userId: String
    ) async throws -> String {
        let (written, attachments, extra) = writer.finishing
        var set = extra
        var text = written
        var unset: [String] = []
        switch outcome {
        case .completed:
            unset = [Field.stopped, Field.error]
            if text.isEmpty, attachments.isEmpty { text = "(The model gave no answer.)" }
        case .stopped:
            set[Field.stopped] = true
            unset = [Field.error]
            if text.isEmpty, attachments.isEmpty { text = "(Stopped before any answer.)" }
        case .failed(let error):
            let why = Self.explain(error)
            let note = written.isEmpty ? "Sorry, I could not answer: \(why)" : "\n\n(The answer broke off: \(why))"
            text = written.isEmpty ? note : String(written.prefix(max(0, options.maximumLength - note.count))) + note
            set[Field.error] = ["message": .string(why), "detail": .string("\(error)")]
            unset = [Field.stopped]
            context.logger.warning("Streamed reply \(messageId) failed: \(error)")
        }
        if writer.isTruncated { set[Field.truncated] = true } else { unset.append(Field.truncated) }
        set["text"] = .string(text)
        set[Field.generating] = false
        set["attachments"] = .array(try attachments.map { .object(try $0.jsonObject()) })
        try await FinalWrite(client: client, deadline: .now + options.finalWriteDeadline, logger: context.logger)
            .write(messageId, set: set, unset: unset, as: userId)
        return text
    }

    /// A failure in plain words.
    static func explain(_ error: any Error) -> String {
        if let error = error as? any UserFacingError { return error.userFacingDescription }
        if let error = error as? ChatClientError { return "the chat service refused a call (\(error.message))" }
        return "something went wrong while answering (\(error))"
    }
}
