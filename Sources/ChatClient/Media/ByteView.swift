/// Fixed-width integers read out of a byte buffer, nil past its end: header parsing that never
/// traps on a file cut short.
struct ByteView {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var count: Int { bytes.count }

    func u8(_ offset: Int) -> UInt8? { offset >= 0 && offset < bytes.count ? bytes[offset] : nil }

    func u16be(_ offset: Int) -> Int? { read(offset, 2, bigEndian: true) }
    func u16le(_ offset: Int) -> Int? { read(offset, 2, bigEndian: false) }
    func u24le(_ offset: Int) -> Int? { read(offset, 3, bigEndian: false) }
    func u32be(_ offset: Int) -> Int? { read(offset, 4, bigEndian: true) }
    func u32le(_ offset: Int) -> Int? { read(offset, 4, bigEndian: false) }
    func u64be(_ offset: Int) -> UInt64? {
        guard let high = u32be(offset), let low = u32be(offset + 4) else { return nil }
        return UInt64(high) << 32 | UInt64(low)
    }

    /// Whether the bytes at `offset` spell `ascii`.
    func matches(_ ascii: String, at offset: Int) -> Bool {
        let expected = Array(ascii.utf8)
        guard offset >= 0, offset + expected.count <= bytes.count else { return false }
        return bytes[offset..<offset + expected.count].elementsEqual(expected)
    }

    private func read(_ offset: Int, _ width: Int, bigEndian: Bool) -> Int? {
        guard offset >= 0, offset + width <= bytes.count else { return nil }
        var value = 0
        for index in 0..<width {
            let byte = Int(bytes[offset + (bigEndian ? index : width - 1 - index)])
            value = value << 8 | byte
        }
        return value
    }
}
