import Foundation

/// One attachment of a message with a payload of type `Payload`.
///
/// Payload fields read directly on the attachment (`workout.workoutDistanceMeters`), as in
/// Stream's SDK. The type-erased form, ``AnyChatMessageAttachment``, carries the raw JSON object.
@dynamicMemberLookup
public struct ChatMessageAttachment<Payload: Sendable>: Sendable, Identifiable {
    /// Which message and position the attachment belongs to.
    public let id: AttachmentId
    /// The attachment type (a link preview is `.linkPreview` whatever its wire `type`).
    public let type: AttachmentType
    /// The payload.
    public var payload: Payload
    /// Set while a local file is being uploaded for this attachment.
    public var uploadingState: AttachmentUploadingState?

    /// An attachment.
    public init(id: AttachmentId, type: AttachmentType, payload: Payload, uploadingState: AttachmentUploadingState? = nil) {
        self.id = id
        self.type = type
        self.payload = payload
        self.uploadingState = uploadingState
    }

    /// Reads a payload field through the attachment.
    public subscript<T>(dynamicMember keyPath: KeyPath<Payload, T>) -> T {
        payload[keyPath: keyPath]
    }
}

extension ChatMessageAttachment: Equatable where Payload: Equatable {}
extension ChatMessageAttachment: Hashable where Payload: Hashable {}

/// An attachment before any typed decoding: its payload is the attachment's JSON bytes exactly
/// as received (including `type`), so an unknown type round-trips byte for byte.
public typealias AnyChatMessageAttachment = ChatMessageAttachment<Data>

/// A typed image attachment.
public typealias ChatMessageImageAttachment = ChatMessageAttachment<ImageAttachmentPayload>
/// A typed video attachment.
public typealias ChatMessageVideoAttachment = ChatMessageAttachment<VideoAttachmentPayload>
/// A typed audio attachment.
public typealias ChatMessageAudioAttachment = ChatMessageAttachment<AudioAttachmentPayload>
/// A typed file attachment.
public typealias ChatMessageFileAttachment = ChatMessageAttachment<FileAttachmentPayload>
/// A typed voice recording attachment.
public typealias ChatMessageVoiceRecordingAttachment = ChatMessageAttachment<VoiceRecordingAttachmentPayload>
/// A typed giphy attachment.
public typealias ChatMessageGiphyAttachment = ChatMessageAttachment<GiphyAttachmentPayload>
/// A typed link preview.
public typealias ChatMessageLinkAttachment = ChatMessageAttachment<LinkAttachmentPayload>
