import ChatModels
import Foundation

extension MediaProbe {
    /// An MPEG audio frame header (MP3: MPEG-1, -2 or -2.5, Layer III).
    struct MPEGFrame {
        var bitrate: Int
        var sampleRate: Int
        var samplesPerFrame: Int
        /// The bytes from the header to the next frame.
        var length: Int
        /// Where the Xing/Info tag of a first frame would start, after the side information.
        var xingOffset: Int

        /// The header at `offset`, or nil when the bytes there are not a Layer III frame header.
        init?(_ bytes: ByteView, at offset: Int) {
            guard bytes.u8(offset) == 0xFF, let second = bytes.u8(offset + 1), second & 0xE0 == 0xE0, let third = bytes.u8(offset + 2),
                let fourth = bytes.u8(offset + 3)
            else { return nil }
            let version = Int(second >> 3 & 3)  // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
            let layer = Int(second >> 1 & 3)  // 1: Layer III
            let bitrateIndex = Int(third >> 4)
            let rateIndex = Int(third >> 2 & 3)
            guard version != 1, layer == 1, (1...14).contains(bitrateIndex), rateIndex < 3 else { return nil }
            let isMPEG1 = version == 3
            let kilobits =
                isMPEG1
                ? [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320][bitrateIndex]
                : [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160][bitrateIndex]
            let baseRate = [44_100, 48_000, 32_000][rateIndex]
            bitrate = kilobits * 1000
            sampleRate = version == 3 ? baseRate : version == 2 ? baseRate / 2 : baseRate / 4
            samplesPerFrame = isMPEG1 ? 1152 : 576
            length = samplesPerFrame / 8 * bitrate / sampleRate + Int(third >> 1 & 1)
            let isMono = fourth >> 6 == 3
            xingOffset = offset + 4 + (isMPEG1 ? (isMono ? 17 : 32) : (isMono ? 9 : 17))
        }
    }

    /// An MP3's length: from its Xing/Info or VBRI frame count when it has one (variable bit
    /// rate), else from its size and the first frame's bit rate. The first frame must be
    /// followed by another, so that bytes that merely look like a header are not taken for one.
    static func mpegAudio(_ handle: FileHandle, head: ByteView) -> MediaInfo {
        var start = 0
        if head.matches("ID3", at: 0), let flags = head.u8(5), let size = syncSafe(head, at: 6) {
            start = 10 + size + (flags & 0x10 != 0 ? 10 : 0)
        }
        guard let bytes = read(handle, at: UInt64(start), count: 8_192), let frame = MPEGFrame(bytes, at: 0), frame.length > 4,
            MPEGFrame(bytes, at: frame.length) != nil || bytes.count <= frame.length
        else { return .unknown }
        let frameSeconds = Double(frame.samplesPerFrame) / Double(frame.sampleRate)
        let xing = frame.xingOffset
        if bytes.matches("Xing", at: xing) || bytes.matches("Info", at: xing), let flags = bytes.u32be(xing + 4), flags & 1 == 1,
            let frames = bytes.u32be(xing + 8)
        {
            return MediaInfo(duration: Double(frames) * frameSeconds)
        }
        if bytes.matches("VBRI", at: 36), let frames = bytes.u32be(36 + 14) {
            return MediaInfo(duration: Double(frames) * frameSeconds)
        }
        guard let end = try? handle.seekToEnd() else { return .unknown }
        // An ID3v1 tag, if any, is the last 128 bytes.
        let tag = read(handle, at: end >= 128 ? end - 128 : 0, count: 3)
        let audioBytes = Int(end) - start - (tag?.matches("TAG", at: 0) == true ? 128 : 0)
        return MediaInfo(duration: Double(audioBytes * 8) / Double(frame.bitrate))
    }

    /// A 28-bit ID3v2 size: four bytes of seven bits each.
    private static func syncSafe(_ bytes: ByteView, at offset: Int) -> Int? {
        guard let value = bytes.u32be(offset), value & 0x8080_8080 == 0 else { return nil }
        return (value >> 24 & 0x7F) << 21 | (value >> 16 & 0x7F) << 14 | (value >> 8 & 0x7F) << 7 | (value & 0x7F)
    }
}
