import ChatLocking
import ChatModels

/// What the generation of a streamed reply writes to: its text as it arrives, the state the
/// channel's indicator shows, and the custom payloads and fields the finished reply carries.
///
/// Writing is cheap and never waits: the reply's publisher picks the latest text up at its own
/// pace (``StreamedReplyOptions/updatesPerSecond``). Once the user stops the reply, writes are
/// ignored: the reply keeps the text it had when the stop came.
public final class StreamedReplyWriter: Sendable {
    struct Snapshot: Equatable {
        var text: String
        var version: Int
        var state: AIState
    }

    private struct State {
        var text = ""
        var length = 0
        var isTruncated = false
        var version = 0
        var state = AIState.thinking
        var attachments: [AnyAttachmentPayload] = []
        var fields: [String: RawJSON] = [:]
        var isFrozen = false
        var isClosed = false
        var waiter: CheckedContinuation<Snapshot?, Never>?
        var seen = Snapshot(text: "", version: 0, state: .thinking)
    }

    private let state = Locked(State())
    /// The most characters the reply's text may have (the service refuses longer messages).
    let maximumLength: Int

    init(maximumLength: Int = 5000) {
        self.maximumLength = max(2, maximumLength)
    }

    /// Whether text was dropped because the reply reached ``StreamedReplyOptions/maximumLength``.
    public var isTruncated: Bool { state.withLock { $0.isTruncated } }

    /// The text so far.
    public var text: String { state.withLock { $0.text } }

    /// Adds text to the reply; the indicator shows ``AIState/generating``.
    /// Past ``StreamedReplyOptions/maximumLength`` characters the text is cut, ending in `…`.
    public func append(_ text: String) {
        guard !text.isEmpty else { return }
        let maximumLength = maximumLength
        change { state in
            guard !state.isTruncated else { return }
            let added = text.count
            if state.length + added > maximumLength {
                state.text += String(text.prefix(maximumLength - 1 - state.length)) + "…"
                state.length = maximumLength
                state.isTruncated = true
            } else {
                state.text += text
                state.length += added
            }
            state.version += 1
            state.state = .generating
        }
    }

    /// Replaces the reply's text (a model that sends its whole answer again, say).
    public func replaceText(_ text: String) {
        let maximumLength = maximumLength
        change { state in
            state.isTruncated = text.count > maximumLength
            state.text = state.isTruncated ? String(text.prefix(maximumLength - 1)) + "…" : text
            state.length = state.text.count
            state.version += 1
            state.state = .generating
        }
    }

    /// Shows `aiState` in the channel (``AIState/externalSources`` while tools run); text
    /// appended later shows ``AIState/generating`` again.
    public func show(_ aiState: AIState) {
        change { $0.state = aiState }
    }

    /// A custom payload (a summary card, say) the finished reply carries.
    public func attach(_ payload: AnyAttachmentPayload) {
        state.withLock { state in
            guard !state.isFrozen else { return }
            state.attachments.append(payload)
        }
    }

    /// A custom field the finished reply carries.
    public func setField(_ name: String, _ value: RawJSON) {
        state.withLock { state in
            guard !state.isFrozen else { return }
            state.fields[name] = value
        }
    }

    /// The attachments and fields for the final write.
    var finishing: (text: String, attachments: [AnyAttachmentPayload], fields: [String: RawJSON]) {
        state.withLock { ($0.text, $0.attachments, $0.fields) }
    }

    /// Ignores every later write (the user stopped the reply).
    func freeze() {
        state.withLock { $0.isFrozen = true }
    }

    /// Ends the publisher's waiting: ``nextChange()`` answers nil from now on.
    func close() {
        let waiter = state.withLock { state -> CheckedContinuation<Snapshot?, Never>? in
            state.isClosed = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Waits for text or a state not seen yet; nil once closed. One reader (the publisher).
    func nextChange() async -> Snapshot? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Snapshot?? in
                if state.isClosed { return .some(nil) }
                let current = Snapshot(text: state.text, version: state.version, state: state.state)
                if current != state.seen {
                    state.seen = current
                    return .some(current)
                }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The latest text and state, marked as seen.
    func latest() -> Snapshot {
        state.withLock { state in
            let current = Snapshot(text: state.text, version: state.version, state: state.state)
            state.seen = current
            return current
        }
    }

    private func change(_ body: (inout State) -> Void) {
        let resumed = state.withLock { state -> (CheckedContinuation<Snapshot?, Never>, Snapshot)? in
            guard !state.isFrozen else { return nil }
            body(&state)
            guard let waiter = state.waiter else { return nil }
            state.waiter = nil
            let current = Snapshot(text: state.text, version: state.version, state: state.state)
            state.seen = current
            return (waiter, current)
        }
        if let (waiter, snapshot) = resumed { waiter.resume(returning: snapshot) }
    }
}
