import ChatModels
import Foundation

/// Reads what an image, video or recording is from its own headers, without decoding it and
/// without any library: PNG, GIF, JPEG, WebP and BMP sizes; WAV length and waveform; MP4, MOV
/// and M4A (ISO media) length and video size; MP3 (Xing, VBRI or constant bit rate) and Ogg
/// Opus or Vorbis length. Anything else, or a file cut short, is ``MediaInfo/unknown``:
/// probing never fails, it only finds less.
///
/// ```swift
/// let info = MediaProbe.probe(URL(fileURLWithPath: "memo.wav"), waveform: true)
/// // MediaInfo(duration: 3.2, waveform: [0.02, 0.4, …])
/// ```
public enum MediaProbe {
    /// How many values a waveform has (fewer for a recording shorter than that many frames).
    public static let waveformLength = 100

    /// What `file`'s headers say; with `waveform`, an uncompressed (WAV) recording is read
    /// through for its peaks too.
    public static func probe(_ file: URL, waveform: Bool = false) -> MediaInfo {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return .unknown }
        defer { try? handle.close() }
        // JPEG's size comes after its EXIF block, which may hold a thumbnail of up to 64 KB.
        guard let head = try? handle.read(upToCount: 128 * 1024) else { return .unknown }
        let bytes = ByteView([UInt8](head))
        if let (width, height) = imageSize(bytes) { return MediaInfo(width: width, height: height) }
        if bytes.matches("RIFF", at: 0), bytes.matches("WAVE", at: 8) { return wave(handle, waveform: waveform) }
        if bytes.matches("ftyp", at: 4) { return isoMedia(handle) }
        if bytes.matches("OggS", at: 0) { return ogg(handle, head: bytes) }
        if bytes.matches("ID3", at: 0) || MPEGFrame(bytes, at: 0) != nil { return mpegAudio(handle, head: bytes) }
        return .unknown
    }

    /// The size of a PNG, GIF, JPEG, WebP or BMP image from its first bytes.
    static func imageSize(_ bytes: ByteView) -> (Int, Int)? {
        let size: (Int?, Int?)
        if bytes.u8(0) == 0x89, bytes.matches("PNG\r\n\u{1A}\n", at: 1) {
            guard bytes.matches("IHDR", at: 12) else { return nil }
            size = (bytes.u32be(16), bytes.u32be(20))
        } else if bytes.matches("GIF87a", at: 0) || bytes.matches("GIF89a", at: 0) {
            size = (bytes.u16le(6), bytes.u16le(8))
        } else if bytes.u8(0) == 0xFF, bytes.u8(1) == 0xD8 {
            guard let found = jpegSize(bytes) else { return nil }
            size = (found.0, found.1)
        } else if bytes.matches("RIFF", at: 0), bytes.matches("WEBP", at: 8) {
            guard let found = webpSize(bytes) else { return nil }
            size = (found.0, found.1)
        } else if bytes.matches("BM", at: 0), let width = bytes.u32le(18), let height = bytes.u32le(22) {
            // The height is signed: negative for a top-down bitmap.
            size = (width, Int(Int32(truncatingIfNeeded: height).magnitude))
        } else {
            return nil
        }
        guard let width = size.0, let height = size.1, width > 0, height > 0 else { return nil }
        return (width, height)
    }

    /// The frame size from a JPEG's start-of-frame segment, walking the segments before it.
    private static func jpegSize(_ bytes: ByteView) -> (Int, Int)? {
        var offset = 2
        while let marker = bytes.u8(offset), marker == 0xFF {
            guard let kind = bytes.u8(offset + 1) else { return nil }
            if kind == 0xFF {
                offset += 1  // fill byte
                continue
            }
            if kind == 0x01 || (0xD0...0xD8).contains(kind) {
                offset += 2  // a marker without a segment
                continue
            }
            guard let length = bytes.u16be(offset + 2), length >= 2 else { return nil }
            // SOF0–SOF15, except DHT (C4), JPG (C8) and DAC (CC): precision, height, width.
            if (0xC0...0xCF).contains(kind), ![0xC4, 0xC8, 0xCC].contains(kind) {
                guard let height = bytes.u16be(offset + 5), let width = bytes.u16be(offset + 7) else { return nil }
                return (width, height)
            }
            if kind == 0xDA || kind == 0xD9 { return nil }  // image data or the end, and no frame header yet
            offset += 2 + length
        }
        return nil
    }

    /// The canvas size of a lossy (VP8), lossless (VP8L) or extended (VP8X) WebP.
    private static func webpSize(_ bytes: ByteView) -> (Int, Int)? {
        if bytes.matches("VP8 ", at: 12) {
            guard bytes.u8(23) == 0x9D, bytes.u8(24) == 0x01, bytes.u8(25) == 0x2A,
                let width = bytes.u16le(26), let height = bytes.u16le(28)
            else { return nil }
            return (width & 0x3FFF, height & 0x3FFF)
        }
        if bytes.matches("VP8L", at: 12) {
            guard bytes.u8(20) == 0x2F, let bits = bytes.u32le(21) else { return nil }
            return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        }
        if bytes.matches("VP8X", at: 12) {
            guard let width = bytes.u24le(24), let height = bytes.u24le(27) else { return nil }
            return (width + 1, height + 1)
        }
        return nil
    }
}
