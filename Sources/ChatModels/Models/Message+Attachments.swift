extension Message {
    /// How many attachments of each type the message has (link previews counted as `.linkPreview`).
    public var attachmentCounts: [AttachmentType: Int] {
        let attachments = attachments
        var counts = [AttachmentType: Int](minimumCapacity: attachments.count)
        // By index: iterating the values copies each attachment (a retain per field) only to
        // read its type.
        for index in attachments.indices { counts[attachments[index].type, default: 0] += 1 }
        return counts
    }

    /// Every attachment of `P.type` that decodes as `P`; ones that do not decode are skipped
    /// (use ``decodeAttachments(payloadType:)`` to see why).
    ///
    /// Inlinable, as are the other generic entry points here, so that they are specialized for
    /// the caller's payload type instead of looking up generic metadata for every attachment.
    @inlinable
    public func attachments<P: AttachmentPayload>(payloadType: P.Type) -> [ChatMessageAttachment<P>] {
        let attachments = attachments
        var typed: [ChatMessageAttachment<P>] = []
        for index in attachments.indices where attachments[index].type == P.type {
            if case .success(let decoded) = attachments[index].decode(payloadType) { typed.append(decoded) }
        }
        return typed
    }

    /// Every attachment of `P.type`, decoded, or the failure naming the field that did not fit.
    @inlinable
    public func decodeAttachments<P: AttachmentPayload>(payloadType: P.Type)
        -> [Result<ChatMessageAttachment<P>, AttachmentDecodingFailure>]
    {
        let attachments = attachments
        var results: [Result<ChatMessageAttachment<P>, AttachmentDecodingFailure>] = []
        for index in attachments.indices where attachments[index].type == P.type {
            results.append(attachments[index].decode(payloadType))
        }
        return results
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
