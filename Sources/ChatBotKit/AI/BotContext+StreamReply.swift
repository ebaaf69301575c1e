import ChatModels

extension BotContext {
    /// Replies with text that streams in, on Stream's AI protocol, which Stream's UI kits render
    /// (`ai_generated` messages, the `AIStateIndicator`, the stop button).
    ///
    /// ```swift
    /// try await context.streamReply { reply in
    ///     for try await chunk in model.words(for: context.message.text) { reply.append(chunk) }
    /// }
    /// ```
    /// The reply is posted at once, marked `ai_generated`, while the indicator says thinking;
    /// `generate` writes text as it arrives, which partial updates show, coalesced to at most
    /// ``StreamedReplyOptions/updatesPerSecond`` and within the bot's rate budget; the full text
    /// is written at the end, whatever rate limits were hit on the way. A user's stop
    /// (`ai_indicator.stop`) cancels `generate` at once: the reply keeps its text so far and is
    /// marked `ai_stopped`. If `generate` throws, the reply says what went wrong (a
    /// ``UserFacingError`` says it in its own words) and the indicator shows the error.
    @discardableResult
    public func streamReply(
        options: StreamedReplyOptions = StreamedReplyOptions(), _ generate: @escaping @Sendable (StreamedReplyWriter) async throws -> Void
    ) async throws -> StreamedReplyResult {
        try await StreamedReply(context: self, options: options).run(generate)
    }

    /// Replies with the text of `chunks` as it arrives (see ``streamReply(options:_:)``).
    @discardableResult
    public func streamReply<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks, options: StreamedReplyOptions = StreamedReplyOptions())
        async throws -> StreamedReplyResult where Chunks.Element == String
    {
        try await streamReply(options: options) { reply in
            for try await chunk in chunks { reply.append(chunk) }
        }
    }
}
