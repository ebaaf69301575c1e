/// Which payload type decodes which ``AttachmentType``.
///
/// The built-in payloads are registered from the start; add yours with one call:
/// ```swift
/// var registry = AttachmentPayloadRegistry()
/// registry.registerAttachment(WorkoutAttachmentPayload.self)
/// ```
/// A value type: each client or bot owns its registry, there is no global state.
public struct AttachmentPayloadRegistry: Sendable {
    private var payloadTypes: [AttachmentType: any AttachmentPayload.Type]

    /// A registry with the built-in payloads (image, video, audio, file, voiceRecording, giphy, link previews).
    public init() {
        payloadTypes = [:]
        registerAttachment(ImageAttachmentPayload.self)
        registerAttachment(VideoAttachmentPayload.self)
        registerAttachment(AudioAttachmentPayload.self)
        registerAttachment(FileAttachmentPayload.self)
        registerAttachment(VoiceRecordingAttachmentPayload.self)
        registerAttachment(GiphyAttachmentPayload.self)
        registerAttachment(LinkAttachmentPayload.self)
    }

    /// Registers `payloadType` for `P.type`, replacing any earlier registration of that type.
    public mutating func registerAttachment<P: AttachmentPayload>(_ payloadType: P.Type) {
        payloadTypes[P.type] = payloadType
    }

    /// The payload type registered for `type`.
    public func payloadType(for type: AttachmentType) -> (any AttachmentPayload.Type)? {
        payloadTypes[type]
    }

    /// The registered attachment types.
    public var registeredTypes: Set<AttachmentType> { Set(payloadTypes.keys) }

    /// Decodes one attachment with the payload type registered for its type.
    public func decode(_ attachment: AnyChatMessageAttachment) -> AttachmentDecodingResult {
        guard let payloadType = payloadTypes[attachment.type] else { return .unknown(attachment) }
        return decode(attachment, as: payloadType)
    }

    private func decode<P: AttachmentPayload>(_ attachment: AnyChatMessageAttachment, as payloadType: P.Type)
        -> AttachmentDecodingResult
    {
        switch attachment.decode(payloadType) {
        case .success(let typed): return .decoded(typed.payload, attachment)
        case .failure(let failure): return .failed(failure)
        }
    }
}

/// The outcome of decoding one attachment against a registry.
public enum AttachmentDecodingResult: Sendable {
    /// Decoded into its registered payload type.
    case decoded(any AttachmentPayload, AnyChatMessageAttachment)
    /// No payload type is registered for it; the raw JSON is kept whole.
    case unknown(AnyChatMessageAttachment)
    /// Its JSON does not fit the registered payload type.
    case failed(AttachmentDecodingFailure)
}
