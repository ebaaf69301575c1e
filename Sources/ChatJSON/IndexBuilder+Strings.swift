/// Strings: scanning them in one pass, and saying what is wrong with one that does not scan.
extension IndexBuilder {
    /// Records the string opening at `quote` and returns the position after its closing quote,
    /// or nil for a raw control character, invalid UTF-8, a bad escape or a missing closing
    /// quote (``stringError(from:)`` says which). Escapes are checked here, not only when the
    /// string is read: a bad one in a custom field used to pass and then lose the field.
    @_transparent
    func scanString(from quote: Int, into nodes: inout NodeBuffer) -> Int? {
        let (stop, escaped) = stringStop(from: quote)
        guard stop < count, base[stop] == 0x22 else { return nil }
        append(JSONNode(kind: .string, flag: escaped, start: offset(quote &+ 1), end: offset(stop), next: offset(nodes.count &+ 1)), to: &nodes)
        return stop &+ 1
    }

    /// Where the string opening at `quote` stops, 16 bytes at a time: its closing quote, a raw
    /// control character, a byte that is not valid UTF-8, the backslash of an escape JSON does
    /// not allow, or `count` when it never closes; and whether it has escapes.
    ///
    /// Escapes are checked here, in the scan's rare backslash branch, so that strings no reader
    /// looks at are checked too (a bad escape in a custom field used to pass, and the field was
    /// then lost when the custom fields were read). `lenient` steps over bad escapes instead, to
    /// find where such a string ends when diagnosing it.
    @_transparent
    func stringStop(from quote: Int, lenient: Bool = false) -> (position: Int, escaped: Bool) {
        var cursor = quote &+ 1
        var escaped = false
        while true {
            cursor = IndexBuilder.findSpecial(base, cursor, count)
            guard cursor < count else { return (cursor, escaped) }
            let byte = base[cursor]
            // The closing quote first: it is nearly always what stops the scan.
            if byte == 0x22 { return (cursor, escaped) }
            if byte == 0x5C {
                escaped = true
                if !lenient, !escapeIsValid(at: cursor) { return (cursor, escaped) }
                // Skip the escaped character so an escaped quote does not end the string (the
                // hex digits of a \u escape are plain text); a non-ASCII one is left to the
                // UTF-8 check.
                cursor &+= cursor &+ 1 < count && base[cursor &+ 1] >= 0x80 ? 1 : 2
            } else if byte >= 0x80, let length = utf8SequenceLength(at: cursor) {
                cursor &+= length
            } else {
                return (cursor, escaped)
            }
        }
    }

    /// Whether the escape whose backslash is at `backslash` is one JSON allows, read by the same
    /// code that unescapes. One cut off by the end of the input counts as valid here: the
    /// string never closes, which is the error to report. Out of line: inlined, the error
    /// handling around it made every key and string scan a few instructions longer.
    @inline(never)
    func escapeIsValid(at backslash: Int) -> Bool {
        guard backslash &+ 1 < count else { return true }
        return (try? JSONReader.readEscape(UnsafeBufferPointer(start: base, count: count), from: backslash &+ 1)) != nil
    }

    /// The length of the well-formed UTF-8 sequence starting at `start` (a byte of 0x80 or
    /// more), or nil when it is not one (RFC 3629 table 3-7: no overlong forms, no surrogates,
    /// nothing above U+10FFFF), including a sequence cut off by the end of the input.
    @inline(never)
    func utf8SequenceLength(at start: Int) -> Int? {
        let lead = base[start]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return nil
        }
        guard start &+ length <= count else { return nil }
        let second = base[start &+ 1]
        guard second >= low, second <= high else { return nil }
        for offset in 2..<length where base[start &+ offset] & 0xC0 != 0x80 { return nil }
        return length
    }

    /// Why ``scanString(from:into:)`` failed for the string opening at `quote`.
    @inline(never)
    func stringError(from quote: Int) -> JSONError {
        let stop = stringStop(from: quote, lenient: true).position
        guard stop < count else { return JSONError(code: .unexpectedEnd, message: "input ends inside a string", offset: count) }
        if base[stop] >= 0x80 {
            return JSONError(
                code: .invalidUTF8, message: "\(describeByte(base[stop])) inside a string does not start a valid UTF-8 sequence", offset: stop)
        }
        if base[stop] == 0x22 {
            // The string closes, so one of its escapes is what is wrong: unescaping it gives the
            // exact message and offset.
            do {
                _ = try JSONReader.unescape(UnsafeBufferPointer(start: base + quote + 1, count: stop - quote - 1), offset: quote + 1)
            } catch {
                return error
            }
        }
        return syntax("control character \(describeByte(base[stop])) inside a string", at: stop)
    }

    /// The position of the first quote, backslash, control character or non-ASCII byte at or
    /// after `start`.
    @_transparent
    static func findSpecial(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int {
        var cursor = start
        let quote = SIMD16<UInt8>(repeating: 0x22)
        let backslash = SIMD16<UInt8>(repeating: 0x5C)
        let space = SIMD16<Int8>(repeating: 0x20)
        while cursor &+ 16 <= end {
            let chunk = UnsafeRawPointer(base + cursor).loadUnaligned(as: SIMD16<UInt8>.self)
            // As signed bytes, control characters (0x00-0x1F) and non-ASCII bytes (0x80-0xFF,
            // negative) are both below 0x20: one comparison finds both.
            let controlOrHigh = unsafeBitCast(chunk, to: SIMD16<Int8>.self) .< space
            let special = (chunk .== quote) .| (chunk .== backslash) .| controlOrHigh
            // The first set lane from the mask's bytes (0x00 or 0xFF each), read as two words:
            // a lane-by-lane loop compiled to a chain of sixteen tests and branches, and
            // `any(_:)` to a call to a generic reduction when this is inlined into the index.
            let lanes = unsafeBitCast(special, to: SIMD2<UInt64>.self)
            let low = UInt64(littleEndian: lanes[0])
            if low != 0 { return cursor &+ low.trailingZeroBitCount &>> 3 }
            let high = UInt64(littleEndian: lanes[1])
            if high != 0 { return cursor &+ 8 &+ high.trailingZeroBitCount &>> 3 }
            cursor &+= 16
        }
        while cursor < end {
            let byte = base[cursor]
            if byte == 0x22 || byte == 0x5C || byte < 0x20 || byte >= 0x80 { return cursor }
            cursor &+= 1
        }
        return end
    }
}
