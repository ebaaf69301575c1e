import Foundation

/// Strings with escapes: decoded into one buffer sized for the text, in one pass.
extension JSONReader {
    /// Decodes a string with escapes straight into the String's storage: runs without a
    /// backslash are copied whole, and an escape never makes the text longer than it was.
    @usableFromInline static func unescape(_ raw: UnsafeBufferPointer<UInt8>, offset: Int) throws(JSONError) -> String {
        var failure: JSONError?
        let text = String(unsafeUninitializedCapacity: max(raw.count, 1)) { output in
            do throws(JSONError) {
                return try unescape(raw, into: output)
            } catch {
                failure = JSONError(code: .syntax, message: error.message, offset: offset + (error.offset ?? 0))
                return 0
            }
        }
        if let failure { throw failure }
        return text
    }

    /// Writes the unescaped UTF-8 of `raw` into `output` (at least `raw.count` bytes) and
    /// returns the length; errors carry the offset within `raw`.
    private static func unescape(_ raw: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>)
        throws(JSONError) -> Int
    {
        guard let source = raw.baseAddress, let target = output.baseAddress else { return 0 }
        var index = 0
        var written = 0
        while index < raw.count {
            var run = index
            while run < raw.count, source[run] != UInt8(ascii: "\\") { run += 1 }
            if run > index {
                (target + written).update(from: source + index, count: run - index)
                written += run - index
                index = run
                continue
            }
            // A \uXXXX escape is 6 bytes and its UTF-8 at most 3; a surrogate pair is 12 bytes for 4.
            let escape = try readEscape(raw, from: index + 1)
            written += encodeUTF8(escape.scalar, into: target + written)
            if let trailing = escape.trailing { written += encodeUTF8(trailing, into: target + written) }
            index = escape.next
        }
        return written
    }

    /// Writes `value` as UTF-8 (U+FFFD for a surrogate or anything above U+10FFFF); returns how
    /// many bytes. Written out rather than through `UTF8.encode`, whose callback captured the
    /// output count and brought dynamic exclusivity checks along.
    @inline(__always)
    private static func encodeUTF8(_ value: UInt32, into target: UnsafeMutablePointer<UInt8>) -> Int {
        let scalar = Unicode.Scalar(value)?.value ?? 0xFFFD
        switch scalar {
        case 0..<0x80:
            target[0] = UInt8(scalar)
            return 1
        case 0x80..<0x800:
            target[0] = UInt8(0xC0 | scalar >> 6)
            target[1] = UInt8(0x80 | scalar & 0x3F)
            return 2
        case 0x800..<0x10000:
            target[0] = UInt8(0xE0 | scalar >> 12)
            target[1] = UInt8(0x80 | scalar >> 6 & 0x3F)
            target[2] = UInt8(0x80 | scalar & 0x3F)
            return 3
        default:
            target[0] = UInt8(0xF0 | scalar >> 18)
            target[1] = UInt8(0x80 | scalar >> 12 & 0x3F)
            target[2] = UInt8(0x80 | scalar >> 6 & 0x3F)
            target[3] = UInt8(0x80 | scalar & 0x3F)
            return 4
        }
    }

    /// One escape sequence, `start` being the position after its backslash: the scalar it
    /// stands for and the position after it. A high surrogate followed by another `\u` escape
    /// reads both: a valid pair is one scalar; otherwise the first is U+FFFD and the second
    /// escape's scalar comes back in `trailing`. Errors carry the offset within `raw`.
    static func readEscape(_ raw: UnsafeBufferPointer<UInt8>, from start: Int) throws(JSONError)
        -> (scalar: UInt32, trailing: UInt32?, next: Int)
    {
        var index = start
        func fail(_ message: String) -> JSONError {
            JSONError(code: .syntax, message: message, offset: index)
        }
        func hex4() throws(JSONError) -> UInt32 {
            guard index + 4 <= raw.count else { throw fail("a \\u escape needs four hex digits") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = raw[index]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw fail("invalid hex digit \(describeByte(byte)) in a \\u escape")
                }
                value = value << 4 | digit
                index += 1
            }
            return value
        }
        guard index < raw.count else { throw fail("a string ends inside an escape sequence") }
        let escape = raw[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return (UInt32(escape), nil, index)
        case UInt8(ascii: "b"): return (0x08, nil, index)
        case UInt8(ascii: "f"): return (0x0C, nil, index)
        case UInt8(ascii: "n"): return (0x0A, nil, index)
        case UInt8(ascii: "r"): return (0x0D, nil, index)
        case UInt8(ascii: "t"): return (0x09, nil, index)
        case UInt8(ascii: "u"):
            let first = try hex4()
            guard (0xD800...0xDBFF).contains(first), index + 1 < raw.count, raw[index] == UInt8(ascii: "\\"),
                raw[index + 1] == UInt8(ascii: "u")
            else { return (first, nil, index) }
            index += 2
            let second = try hex4()
            if (0xDC00...0xDFFF).contains(second) {
                return (0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00), nil, index)
            }
            return (0xFFFD, second, index)
        default:
            index -= 1
            throw fail("invalid escape sequence \\\(describeByte(escape))")
        }
    }
}
