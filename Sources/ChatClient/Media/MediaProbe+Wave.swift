import ChatModels
import Foundation

extension MediaProbe {
    /// The format of a WAV file's samples, from its `fmt ` chunk.
    struct WaveFormat {
        /// 1: integer PCM; 3: 32-bit float.
        var encoding: Int
        var channels: Int
        var bytesPerSecond: Int
        var bytesPerFrame: Int
        var bitsPerSample: Int

        /// Whether the probe can read its samples for a waveform.
        var isReadable: Bool {
            channels > 0 && bytesPerFrame == channels * (bitsPerSample / 8)
                && ((encoding == 1 && [8, 16, 24, 32].contains(bitsPerSample)) || (encoding == 3 && bitsPerSample == 32))
        }
    }

    /// A WAV file's length, from its format and the size of its `data` chunk, and (with
    /// `waveform`) the peak of each of ``waveformLength`` stretches of it.
    static func wave(_ handle: FileHandle, waveform: Bool) -> MediaInfo {
        var format: WaveFormat?
        var offset: UInt64 = 12
        // Chunks: a four-letter id and a little-endian size, padded to an even length.
        while let header = read(handle, at: offset, count: 8), header.count == 8 {
            guard let size = header.u32le(4) else { break }
            let body = offset + 8
            if header.matches("fmt ", at: 0), let chunk = read(handle, at: body, count: min(size, 40)) {
                format = waveFormat(chunk)
            } else if header.matches("data", at: 0) {
                guard let format, format.bytesPerSecond > 0 else { return .unknown }
                // A size past the end of the file (a recording still being written) counts what is there.
                let fileSize = (try? handle.seekToEnd()) ?? body
                let available = min(UInt64(size), fileSize > body ? fileSize - body : 0)
                var info = MediaInfo(duration: Double(available) / Double(format.bytesPerSecond))
                if waveform, format.isReadable { info.waveform = peaks(handle, from: body, bytes: available, format: format) }
                return info
            }
            offset = body + UInt64(size) + UInt64(size & 1)
        }
        return .unknown
    }

    private static func waveFormat(_ chunk: ByteView) -> WaveFormat? {
        guard var encoding = chunk.u16le(0), let channels = chunk.u16le(2),
            let bytesPerSecond = chunk.u32le(8), let bytesPerFrame = chunk.u16le(12), let bits = chunk.u16le(14)
        else { return nil }
        // WAVE_FORMAT_EXTENSIBLE names the real encoding in the first two bytes of its sub-format.
        if encoding == 0xFFFE, let subFormat = chunk.u16le(24) { encoding = subFormat }
        return WaveFormat(
            encoding: encoding, channels: channels, bytesPerSecond: bytesPerSecond, bytesPerFrame: bytesPerFrame,
            bitsPerSample: bits)
    }

    /// The loudest sample of each of ``waveformLength`` equal stretches, as a fraction of full
    /// scale, rounded to thousandths; read 1 MB at a time, so a long recording costs no memory.
    private static func peaks(_ handle: FileHandle, from start: UInt64, bytes: UInt64, format: WaveFormat) -> [Double] {
        let frames = Int(bytes) / format.bytesPerFrame
        guard frames > 0 else { return [] }
        let buckets = min(waveformLength, frames)
        var peaks = [Double](repeating: 0, count: buckets)
        let framesPerRead = max(1, 1_048_576 / format.bytesPerFrame)
        var frame = 0
        try? handle.seek(toOffset: start)
        while frame < frames {
            let count = min(framesPerRead, frames - frame)
            guard let data = try? handle.read(upToCount: count * format.bytesPerFrame), !data.isEmpty else { break }
            let available = data.count / format.bytesPerFrame
            data.withUnsafeBytes { raw in
                // Stretch by stretch within what was read: the channels are interleaved, so the
                // loudest sample of a run of frames is the loudest of one contiguous run of bytes.
                var index = 0
                while index < available {
                    let bucket = (frame + index) * buckets / frames
                    let bucketEnd = ((bucket + 1) * frames + buckets - 1) / buckets
                    let end = min(available, bucketEnd - frame)
                    let run = UnsafeRawBufferPointer(rebasing: raw[index * format.bytesPerFrame..<end * format.bytesPerFrame])
                    peaks[bucket] = max(peaks[bucket], loudest(run, format: format))
                    index = end
                }
            }
            frame += available
            if available < count { break }
        }
        return peaks.map { (min($0, 1) * 1000).rounded() / 1000 }
    }

    /// The loudest sample of a run of whole frames, as a fraction of full scale: 8-bit samples
    /// are unsigned, the others signed little-endian integers, or 32-bit floats. One tight loop
    /// per format, which the compiler vectorizes.
    private static func loudest(_ run: UnsafeRawBufferPointer, format: WaveFormat) -> Double {
        switch (format.encoding, format.bitsPerSample) {
        case (3, _):
            var peak: Float = 0
            for index in stride(from: 0, to: run.count, by: 4) {
                peak = max(peak, abs(Float(bitPattern: UInt32(littleEndian: run.loadUnaligned(fromByteOffset: index, as: UInt32.self)))))
            }
            return Double(peak)
        case (_, 8):
            var (low, high): (UInt8, UInt8) = (128, 128)
            for byte in run {
                low = min(low, byte)
                high = max(high, byte)
            }
            return Double(max(128 - Int(low), Int(high) - 128)) / 128
        case (_, 16):
            let (low, high) = extremes(run, as: Int16.self)
            return Double(max(-low, high)) / 32_768
        case (_, 24):
            var (low, high): (Int32, Int32) = (0, 0)
            for index in stride(from: 0, to: run.count, by: 3) {
                let value = (Int32(run[index]) << 8 | Int32(run[index + 1]) << 16 | Int32(run[index + 2]) << 24) >> 8
                low = min(low, value)
                high = max(high, value)
            }
            return Double(max(-Int(low), Int(high))) / 8_388_608
        default:
            let (low, high) = extremes(run, as: Int32.self)
            return Double(max(-low, high)) / 2_147_483_648
        }
    }

    /// The smallest and largest of the little-endian integers in `run` (and zero). Over an
    /// aligned run (a read buffer is one) the loop reads `T`s directly, and vectorizes: about
    /// four times as fast as reading each value unaligned.
    private static func extremes<T: FixedWidthInteger & SignedInteger>(_ run: UnsafeRawBufferPointer, as _: T.Type) -> (Int64, Int64) {
        var (low, high): (T, T) = (0, 0)
        if Int(bitPattern: run.baseAddress) % MemoryLayout<T>.alignment == 0 {
            for value in run.assumingMemoryBound(to: T.self) {
                low = min(low, T(littleEndian: value))
                high = max(high, T(littleEndian: value))
            }
        } else {
            for index in stride(from: 0, to: run.count, by: MemoryLayout<T>.size) {
                let value = T(littleEndian: run.loadUnaligned(fromByteOffset: index, as: T.self))
                low = min(low, value)
                high = max(high, value)
            }
        }
        return (Int64(low), Int64(high))
    }

    /// Up to `count` bytes at `offset`; nil when nothing can be read there.
    static func read(_ handle: FileHandle, at offset: UInt64, count: Int) -> ByteView? {
        guard (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.read(upToCount: count), !data.isEmpty else { return nil }
        return ByteView([UInt8](data))
    }
}
