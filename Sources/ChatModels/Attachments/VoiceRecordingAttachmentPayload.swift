import Foundation

/// A voice recording: `asset_url`, duration and the waveform (`waveform_data`, samples 0...1).
public struct VoiceRecordingAttachmentPayload: AttachmentPayload {
    /// `.voiceRecording`.
    public static let type: AttachmentType = .voiceRecording
    static let knownKeys: Set<String> = ["type", "title", "asset_url", "duration", "waveform_data", "file_size", "mime_type"]

    /// The title.
    public var title: String?
    /// The recording (`asset_url`); required.
    public var voiceRecordingURL: URL
    /// Length in seconds.
    public var duration: Double?
    /// Normalised amplitude samples.
    public var waveformData: [Double]?
    /// Size in bytes.
    public var fileSize: Int64?
    /// MIME type.
    public var mimeType: String?
    /// Every other field.
    public var extraData: [String: RawJSON]

    /// A voice recording payload.
    public init(
        title: String? = nil, voiceRecordingURL: URL, duration: Double? = nil, waveformData: [Double]? = nil,
        fileSize: Int64? = nil, mimeType: String? = nil, extraData: [String: RawJSON] = [:]
    ) {
        self.title = title
        self.voiceRecordingURL = voiceRecordingURL
        self.duration = duration
        self.waveformData = waveformData
        self.fileSize = fileSize
        self.mimeType = mimeType
        self.extraData = extraData
    }

    /// Decodes the flat wire form.
    public init(from decoder: any Decoder) throws {
        let fields = try PayloadFields(decoder)
        title = try fields.string("title")
        voiceRecordingURL = try fields.requiredURL("asset_url")
        duration = try fields.double("duration")
        waveformData = try fields.decode([Double].self, "waveform_data")
        fileSize = try fields.fileSize("file_size")
        mimeType = try fields.string("mime_type")
        extraData = try fields.extraData(excluding: Self.knownKeys)
    }

    /// Encodes the flat wire form.
    public func encode(to encoder: any Encoder) throws {
        var writer = PayloadWriter(encoder)
        try writer.set("title", title)
        try writer.set("asset_url", voiceRecordingURL)
        try writer.set("duration", duration)
        try writer.set("waveform_data", waveformData)
        try writer.set("file_size", fileSize)
        try writer.set("mime_type", mimeType)
        try writer.setExtraData(extraData, excluding: Self.knownKeys)
    }
}
