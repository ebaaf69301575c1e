import ChatModels
import Foundation

extension MediaProbe {
    /// An Ogg Opus or Ogg Vorbis file's length: the granule position (samples) of its last
    /// page, over the codec's sample rate (Opus always counts at 48 kHz, less its pre-skip).
    static func ogg(_ handle: FileHandle, head: ByteView) -> MediaInfo {
        // The first page holds the codec's identification header as its first packet.
        guard let segments = head.u8(26) else { return .unknown }
        let packet = 27 + Int(segments)
        let rate: Int
        var preSkip = 0
        if head.matches("OpusHead", at: packet) {
            rate = 48_000
            preSkip = head.u16le(packet + 10) ?? 0
        } else if head.u8(packet) == 1, head.matches("vorbis", at: packet + 1), let vorbisRate = head.u32le(packet + 12), vorbisRate > 0 {
            rate = vorbisRate
        } else {
            return .unknown
        }
        guard let end = try? handle.seekToEnd() else { return .unknown }
        let tailStart = end > 65_536 ? end - 65_536 : 0
        guard let tail = read(handle, at: tailStart, count: Int(end - tailStart)) else { return .unknown }
        // The last page is the last "OggS" with a whole header after it.
        var offset = tail.count - 27
        while offset >= 0, !(tail.matches("OggS", at: offset) && tail.u8(offset + 4) == 0) { offset -= 1 }
        guard offset >= 0, let low = tail.u32le(offset + 6), let high = tail.u32le(offset + 10) else { return .unknown }
        let granule = Int64(bitPattern: UInt64(high) << 32 | UInt64(low))
        guard granule > preSkip else { return .unknown }
        return MediaInfo(duration: Double(granule - Int64(preSkip)) / Double(rate))
    }
}
