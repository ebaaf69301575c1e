import Foundation

/// Media files made byte by byte, for tests of what a bot sends or receives: real PNG, GIF and
/// WAV files (any decoder reads them), and JPEG, WebP, BMP, MP4, MP3 and Ogg files whose headers
/// are real and whose pixel or sample data is a stand-in.
///
/// ```swift
/// try MediaFixtures.png(width: 640, height: 480).write(to: url)
/// try MediaFixtures.wave(seconds: 2, amplitude: { $0 < 1 ? 0.5 : 0 }).write(to: memo)
/// ```
public enum MediaFixtures {
    /// A PNG of `width` x `height` grey pixels, its image data in stored (uncompressed) deflate
    /// blocks, with real CRCs and checksum.
    public static func png(width: Int, height: Int) -> Data {
        var raw: [UInt8] = []
        for _ in 0..<height { raw += [0] + [UInt8](repeating: 0x80, count: width * 3) }  // filter byte, RGB
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, raw.count - offset)
            let isLast = offset + length == raw.count
            zlib += [isLast ? 1 : 0] + le16(length) + le16(~length & 0xFFFF) + raw[offset..<offset + length]
            offset += length
        } while offset < raw.count
        zlib += be32(adler32(raw))
        let header = be32(width) + be32(height) + [8, 2, 0, 0, 0]  // 8-bit RGB
        return Data([0x89] + Array("PNG\r\n\u{1A}\n".utf8) + chunk("IHDR", header) + chunk("IDAT", zlib) + chunk("IEND", []))
    }

    /// A GIF whose screen is `width` x `height`, holding one pixel.
    public static func gif(width: Int, height: Int) -> Data {
        Data(
            Array("GIF89a".utf8) + le16(width) + le16(height) + [0x80, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF]
                + [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3B])
    }

    /// A baseline JPEG of `width` x `height`: JFIF and EXIF segments (`exifBytes` long), a
    /// quantization table, the frame header, and a stand-in scan.
    public static func jpeg(width: Int, height: Int, exifBytes: Int = 1_000) -> Data {
        func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] { [0xFF, marker] + be16(body.count + 2) + body }
        let jfif = segment(0xE0, Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0])
        // A well-formed TIFF block with an empty directory, padded: libmagic leaks 1,096 bytes
        // reading a malformed one (found by the AddressSanitizer run).
        let tiff: [UInt8] = Array("II".utf8) + [0x2A, 0] + le32(8) + le16(0) + le32(0)
        let exif = segment(0xE1, Array("Exif\0\0".utf8) + tiff + [UInt8](repeating: 0, count: max(0, exifBytes - tiff.count)))
        let quantization = segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        let frame = segment(0xC0, [8] + be16(height) + be16(width) + [1, 1, 0x11, 0])
        let scan = segment(0xDA, [1, 1, 0, 0, 63, 0]) + [0x12, 0x34]
        return Data([0xFF, 0xD8] + jfif + exif + quantization + frame + scan + [0xFF, 0xD9])
    }

    /// A WebP header of each kind: `lossy` (VP8), `lossless` (VP8L) or `extended` (VP8X).
    public static func webp(width: Int, height: Int, kind: String) -> Data {
        let body: [UInt8]
        switch kind {
        case "lossy": body = Array("VP8 ".utf8) + le32(10) + [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A] + le16(width) + le16(height)
        case "lossless":
            let bits = (width - 1) | (height - 1) << 14
            body = Array("VP8L".utf8) + le32(5) + [0x2F] + le32(bits)
        default: body = Array("VP8X".utf8) + le32(10) + [0, 0, 0, 0] + le24(width - 1) + le24(height - 1)
        }
        return Data(Array("RIFF".utf8) + le32(body.count + 4) + Array("WEBP".utf8) + body)
    }

    /// A top-down BMP header of `width` x `height`.
    public static func bmp(width: Int, height: Int) -> Data {
        let header = Array("BM".utf8) + le32(54) + [0, 0, 0, 0] + le32(54)
        let info = le32(40) + le32(width) + le32(UInt32(bitPattern: Int32(-height))) + le16(1) + le16(24) + [UInt8](repeating: 0, count: 24)
        return Data(header + info)
    }

    /// A PCM WAV file of `seconds` of a 440 Hz tone whose amplitude at each time (seconds, 0–1)
    /// is `amplitude`: `bits` 8, 16, 24 or 32 (integers) or `float` 32-bit samples, on
    /// `channels` channels (the tone on the first, silence on the others). `listBytes` puts a
    /// LIST chunk of that size (odd sizes are padded) before the data.
    public static func wave(
        seconds: Double, sampleRate: Int = 8_000, bits: Int = 16, float: Bool = false, channels: Int = 1, listBytes: Int = 0,
        amplitude: (Double) -> Double = { _ in 0.5 }
    ) -> Data {
        let frames = Int(seconds * Double(sampleRate))
        let bytesPerSample = bits / 8
        var samples: [UInt8] = []
        samples.reserveCapacity(frames * channels * bytesPerSample)
        for frame in 0..<frames {
            let time = Double(frame) / Double(sampleRate)
            let value = amplitude(time) * sin(2 * .pi * 440 * time)
            for channel in 0..<channels { samples += encode(channel == 0 ? value : 0, bits: bits, float: float) }
        }
        let format: [UInt8] =
            le16(float ? 3 : 1) + le16(channels) + le32(sampleRate) + le32(sampleRate * channels * bytesPerSample)
            + le16(channels * bytesPerSample) + le16(bits)
        var chunks = Array("fmt ".utf8) + le32(format.count) + format
        if listBytes > 0 {
            chunks += Array("LIST".utf8) + le32(listBytes) + [UInt8](repeating: 0x20, count: listBytes) + (listBytes % 2 == 1 ? [0] : [])
        }
        chunks += Array("data".utf8) + le32(samples.count) + samples
        return Data(Array("RIFF".utf8) + le32(chunks.count + 4) + Array("WAVE".utf8) + chunks)
    }

    /// An ISO media file (MP4, or M4A without `width`): `ftyp`, a stand-in `mdat`, and a `moov`
    /// with a movie header of `seconds` and a video track header of `width` x `height` beside
    /// an audio one; `moovFirst` puts it before the data (as streaming-ready files have it),
    /// `version` 1 writes the 64-bit headers.
    public static func isoMedia(seconds: Double, width: Int? = nil, height: Int? = nil, moovFirst: Bool = false, version: UInt8 = 0) -> Data {
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] { be32(body.count + 8) + Array(type.utf8) + body }
        let timescale = 600
        let duration = Int(seconds * Double(timescale))
        let times = version == 1 ? [UInt8](repeating: 0, count: 16) : [UInt8](repeating: 0, count: 8)
        let length = version == 1 ? be32(duration >> 32) + be32(duration & 0xFFFF_FFFF) : be32(duration)
        let movieHeader = box("mvhd", [version, 0, 0, 0] + times + be32(timescale) + length + [UInt8](repeating: 0, count: 80))
        func trackHeader(_ width: Int, _ height: Int) -> [UInt8] {
            let trackTimes = version == 1 ? [UInt8](repeating: 0, count: 16) + be32(1) + be32(0) + [UInt8](repeating: 0, count: 8)
                : [UInt8](repeating: 0, count: 8) + be32(1) + be32(0) + be32(0)
            let middle = [UInt8](repeating: 0, count: 8 + 8 + 36)  // reserved, layer/group/volume, matrix
            return box("trak", box("tkhd", [version, 0, 0, 7] + trackTimes + middle + be32(width << 16) + be32(height << 16)))
        }
        var movie = movieHeader + trackHeader(0, 0)
        if let width, let height { movie += trackHeader(width, height) }
        let moov = box("moov", movie)
        let ftyp = box("ftyp", Array((width == nil ? "M4A " : "isom").utf8) + be32(512) + Array("isomiso2mp41".utf8))
        let mdat = box("mdat", [UInt8](repeating: 0xAB, count: 4_096))
        return Data(ftyp + (moovFirst ? moov + mdat : mdat + moov))
    }

    /// An MP3 of `seconds` in silent MPEG-1 Layer III frames at 128 kbps and 44.1 kHz (417
    /// bytes each), after an ID3v2 tag of `id3Bytes` (none for 0) and before an ID3v1 tag (with
    /// `id3v1`); with `xing`, the first frame is a Xing header counting the others.
    public static func mp3(seconds: Double, id3Bytes: Int = 0, id3v1: Bool = false, xing: Bool = false) -> Data {
        let frames = Int((seconds * 44_100 / 1152).rounded())
        var bytes: [UInt8] = []
        if id3Bytes > 0 {
            let size = id3Bytes
            bytes += Array("ID3".utf8) + [4, 0, 0] + [UInt8(size >> 21 & 0x7F), UInt8(size >> 14 & 0x7F), UInt8(size >> 7 & 0x7F), UInt8(size & 0x7F)]
            bytes += [UInt8](repeating: 0, count: size)
        }
        let header: [UInt8] = [0xFF, 0xFB, 0x90, 0x40]  // MPEG-1 Layer III, 128 kbps, 44.1 kHz, joint stereo
        for index in 0..<frames {
            var frame = header + [UInt8](repeating: 0, count: 413)
            if xing, index == 0 {
                frame.replaceSubrange(36..<48, with: Array("Xing".utf8) + be32(1) + be32(frames - 1))
            }
            bytes += frame
        }
        if id3v1 { bytes += Array("TAG".utf8) + [UInt8](repeating: 0x20, count: 125) }
        return Data(bytes)
    }

    /// An Ogg file of `seconds` of Opus (at 48 kHz, with a pre-skip of 312) or Vorbis (44.1 kHz):
    /// its identification and comment headers and two audio pages, with real page CRCs.
    public static func ogg(seconds: Double, codec: String = "opus") -> Data {
        let isOpus = codec == "opus"
        let rate = isOpus ? 48_000 : 44_100
        let preSkip = isOpus ? 312 : 0
        let identification: [UInt8] =
            isOpus
            ? Array("OpusHead".utf8) + [1, 1] + le16(preSkip) + le32(48_000) + [0, 0, 0]
            : [1] + Array("vorbis".utf8) + le32(0) + [1] + le32(rate) + le32(0) + le32(128_000) + le32(0) + [0xB8, 1]
        let comments: [UInt8] = isOpus ? Array("OpusTags".utf8) + le32(0) + le32(0) : [3] + Array("vorbis".utf8) + le32(0) + le32(0) + [1]
        let samples = Int(seconds * Double(rate)) + preSkip
        return Data(
            oggPage(identification, granule: 0, sequence: 0, type: 2) + oggPage(comments, granule: 0, sequence: 1, type: 0)
                + oggPage([UInt8](repeating: 0x55, count: 200), granule: samples / 2, sequence: 2, type: 0)
                + oggPage([UInt8](repeating: 0x55, count: 200), granule: samples, sequence: 3, type: 4))
    }

    private static func oggPage(_ packet: [UInt8], granule: Int, sequence: Int, type: UInt8) -> [UInt8] {
        let lacing = [UInt8](repeating: 255, count: packet.count / 255) + [UInt8(packet.count % 255)]
        var page = Array("OggS".utf8) + [0, type] + le32(granule & 0xFFFF_FFFF) + le32(granule >> 32) + le32(0x4348_4B31) + le32(sequence)
        page += le32(0) + [UInt8(lacing.count)] + lacing + packet
        let crc = oggCRC(page)
        page.replaceSubrange(22..<26, with: le32(Int(crc)))
        return page
    }

    /// Ogg's page checksum: CRC-32 with polynomial 0x04C11DB7, not reflected, from zero.
    private static func oggCRC(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        return crc
    }

    private static func encode(_ value: Double, bits: Int, float: Bool) -> [UInt8] {
        if float { return le32(Int(Float(value).bitPattern)) }
        switch bits {
        case 8: return [UInt8(max(0, min(255, Int((value * 127).rounded()) + 128)))]
        case 16: return le16(Int(Int16((value * 32_767).rounded())) & 0xFFFF)
        case 24: return le24(Int((value * 8_388_607).rounded()) & 0xFF_FFFF)
        default: return le32(Int(Int32((value * 2_147_483_647).rounded())) & 0xFFFF_FFFF)
        }
    }

    private static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + body
        return be32(body.count) + typed + be32(Int(crc32(typed)))
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    private static func adler32(_ bytes: [UInt8]) -> Int {
        var (a, b) = (1, 0)
        for byte in bytes {
            a = (a + Int(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }

    private static func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    private static func be32(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF)] + be16(value) }
    private static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    private static func le24(_ value: Int) -> [UInt8] { le16(value) + [UInt8(value >> 16 & 0xFF)] }
    private static func le32(_ value: Int) -> [UInt8] { le16(value) + le16(value >> 16) }
    private static func le32(_ value: UInt32) -> [UInt8] { le32(Int(value)) }
}
