import ChatModels
import Foundation

extension MediaProbe {
    /// The largest `moov` box read whole (a long film's can be several megabytes).
    static let maximumMovieBoxSize: UInt64 = 32 * 1024 * 1024

    /// An MP4, MOV or M4A file's length (its movie header) and video size (the largest track
    /// header with a picture). The `moov` box is found wherever it is: before the media data
    /// in files prepared for streaming, after it in files as cameras write them.
    static func isoMedia(_ handle: FileHandle) -> MediaInfo {
        var offset: UInt64 = 0
        while let header = read(handle, at: offset, count: 16), header.count >= 8, let size32 = header.u32be(0) {
            var size = UInt64(size32)
            var headerSize: UInt64 = 8
            if size32 == 1 {
                guard let large = header.u64be(8) else { return .unknown }
                size = large
                headerSize = 16
            } else if size32 == 0 {
                size = ((try? handle.seekToEnd()) ?? offset) - offset  // to the end of the file
            }
            guard size >= headerSize else { return .unknown }
            if header.matches("moov", at: 4) {
                guard size - headerSize <= maximumMovieBoxSize, let movie = read(handle, at: offset + headerSize, count: Int(size - headerSize))
                else { return .unknown }
                return movieInfo(movie)
            }
            offset += size
        }
        return .unknown
    }

    /// Length and video size from the boxes inside `moov`.
    private static func movieInfo(_ movie: ByteView) -> MediaInfo {
        var info = MediaInfo()
        for (type, range) in boxes(movie, in: 0..<movie.count) {
            if type == "mvhd" { info.duration = movieDuration(movie, at: range.lowerBound) }
            if type == "trak" {
                for (inner, innerRange) in boxes(movie, in: range) where inner == "tkhd" {
                    guard let (width, height) = trackSize(movie, at: innerRange.lowerBound), width > 0, height > 0,
                        width * height > (info.width ?? 0) * (info.height ?? 0)
                    else { continue }
                    (info.width, info.height) = (width, height)
                }
            }
        }
        return info
    }

    /// The boxes directly inside `range`: their types and the ranges of their contents.
    private static func boxes(_ bytes: ByteView, in range: Range<Int>) -> [(String, Range<Int>)] {
        var found: [(String, Range<Int>)] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound, let size = bytes.u32be(offset), size >= 8, offset + size <= range.upperBound {
            let type = String(decoding: bytes.bytes[offset + 4..<offset + 8], as: UTF8.self)
            found.append((type, offset + 8..<offset + size))
            offset += size
        }
        return found
    }

    /// `mvhd`: duration over timescale, 32-bit fields in version 0, 64-bit in version 1.
    private static func movieDuration(_ bytes: ByteView, at offset: Int) -> Double? {
        let timescale: Int?
        let duration: UInt64?
        if bytes.u8(offset) == 1 {
            timescale = bytes.u32be(offset + 20)
            duration = bytes.u64be(offset + 24)
        } else {
            timescale = bytes.u32be(offset + 12)
            duration = bytes.u32be(offset + 16).map(UInt64.init)
        }
        guard let timescale, timescale > 0, let duration, duration != UInt64(UInt32.max), duration != .max else { return nil }
        return Double(duration) / Double(timescale)
    }

    /// `tkhd`: the presentation width and height, 16.16 fixed point, at the end of the box.
    private static func trackSize(_ bytes: ByteView, at offset: Int) -> (Int, Int)? {
        let sizeAt = offset + (bytes.u8(offset) == 1 ? 88 : 76)
        guard let width = bytes.u32be(sizeAt), let height = bytes.u32be(sizeAt + 4) else { return nil }
        return (width >> 16, height >> 16)
    }
}
