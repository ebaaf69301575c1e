extension Message {
    /// How many attachments of each type the message has (link previews counted as `.linkPreview`).
    public var attachmentCounts: [AttachmentType: Int] {
        var counts: [AttachmentType: Int] = [:]
        for attachment in attachments { counts[attachment.type, default: 0] += 1 }
        return counts
    }

    /// Every attachment of `P.type` that decodes as `P`; ones that do not decode are skipped
    /// (use ``decodeAttachments(payloadType:)`` to see why).
    public func attachments<P: AttachmentPayload>(payloadType: P.Type) -> [ChatMessageAttachment<P>] {
        attachments.compactMap { $0.type == P.type ? try? $0.decode(payloadType).get() : nil }
    }

    /// Every attachment of `P.type`, decoded, or the failure naming the field that did not fit.
    public func decodeAttachments<P: AttachmentPayload>(payloadType: P.Type)
        -> [Result<ChatMessageAttachment<P>, AttachmentDecodingFailure>]
    {
        attachments.compactMap { $0.type == P.type ? $0.decode(payloadType) : nil }
    }

    /// The type-erased attachments, in order.
    public var allAttachments: [AnyChatMessageAttachment] { attachments }

    /// Image attachments.
    public var imageAttachments: [ChatMessageImageAttachment] { attachments(payloadType: ImageAttachmentPayload.self) }
    /// Video attachments.
    public var videoAttachments: [ChatMessageVideoAttachment] { attachments(payloadType: VideoAttachmentPayload.self) }
    /// Audio attachments.
    public var audioAttachments: [ChatMessageAudioAttachment] { attachments(payloadType: AudioAttachmentPayload.self) }
    /// File attachments.
    public var fileAttachments: [ChatMessageFileAttachment] { attachments(payloadType: FileAttachmentPayload.self) }
    /// Voice recordings.
    public var voiceRecordingAttachments: [ChatMessageVoiceRecordingAttachment] {
        attachments(payloadType: VoiceRecordingAttachmentPayload.self)
    }
    /// Giphy attachments.
    public var giphyAttachments: [ChatMessageGiphyAttachment] { attachments(payloadType: GiphyAttachmentPayload.self) }
    /// Link previews.
    public var linkAttachments: [ChatMessageLinkAttachment] { attachments(payloadType: LinkAttachmentPayload.self) }
}
