/// What a local media file's own headers say about it: an image's or a video's size in
/// pixels, a recording's length, and for uncompressed audio its waveform. The fields Stream's
/// clients lay attachments out with (`original_width`, `original_height`, `duration`,
/// `waveform_data`), which every server SDK leaves the caller to measure.
public struct MediaInfo: Sendable, Equatable {
    /// Width in pixels.
    public var width: Int?
    /// Height in pixels.
    public var height: Int?
    /// Length in seconds.
    public var duration: Double?
    /// Peak amplitude per stretch of the recording, from 0 (silence) to 1 (full scale).
    public var waveform: [Double]?

    /// Media information; nil fields were not found.
    public init(width: Int? = nil, height: Int? = nil, duration: Double? = nil, waveform: [Double]? = nil) {
        self.width = width
        self.height = height
        self.duration = duration
        self.waveform = waveform
    }

    /// Nothing found: not a format the probe reads, or a file cut short.
    public static let unknown = MediaInfo()
}
