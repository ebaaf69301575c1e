/// Hexadecimal text, as signatures, digests, trace ids and reply ids are written: one table
/// for the modules of this package (`String(format: "%02x")` goes through NSString on Linux).
package enum HexDigits {
    private static let digits = Array("0123456789abcdef".utf8)

    /// `bytes` as lowercase hex, two digits each.
    package static func string(_ bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `value` as 16 lowercase digits, leading zeros kept.
    package static func string(_ value: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { buffer in
            for index in 0..<16 {
                buffer[index] = digits[Int((value >> UInt64(60 - index * 4)) & 0xF)]
            }
            return 16
        }
    }

    /// The bytes an even number of hex digits (either case) write; nil for an empty text or
    /// anything else.
    package static func bytes(_ text: some StringProtocol) -> [UInt8]? {
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        var high: UInt8?
        for character in utf8 {
            guard let value = digit(character, upperCase: true) else { return nil }
            if let first = high {
                bytes.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return bytes
    }

    /// The value of 1 to 16 lowercase hex digits (W3C trace context allows no other case), or
    /// nil if any is something else.
    package static func value(_ text: some StringProtocol) -> UInt64? {
        guard !text.isEmpty, text.utf8.count <= 16 else { return nil }
        var value: UInt64 = 0
        for character in text.utf8 {
            guard let digit = digit(character, upperCase: false) else { return nil }
            value = value << 4 | UInt64(digit)
        }
        return value
    }

    private static func digit(_ character: UInt8, upperCase: Bool) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F") where upperCase: character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
