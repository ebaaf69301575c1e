/// Numbers and the literals `true`, `false` and `null`.
extension IndexBuilder {
    /// Checks the JSON number grammar, `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`,
    /// and returns the position after the number, or nil when it breaks the grammar
    /// (``numberError(from:)`` says where). Not throwing, so that it inlines into the scan
    /// without the error-building code.
    @_transparent
    func scanNumber(from start: Int) -> Int? {
        var index = start
        if base[index] == UInt8(ascii: "-") { index &+= 1 }
        guard index < count else { return nil }
        if base[index] == UInt8(ascii: "0") {
            index &+= 1
        } else {
            let first = index
            while index < count, base[index] &- UInt8(ascii: "0") < 10 { index &+= 1 }
            if index == first { return nil }
        }
        guard index < count else { return index }
        var byte = base[index]
        if byte == UInt8(ascii: ".") {
            index &+= 1
            let first = index
            while index < count, base[index] &- UInt8(ascii: "0") < 10 { index &+= 1 }
            if index == first { return nil }
            guard index < count else { return index }
            byte = base[index]
        }
        if byte | 0x20 == UInt8(ascii: "e") {
            index &+= 1
            if index < count, base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-") { index &+= 1 }
            let first = index
            while index < count, base[index] &- UInt8(ascii: "0") < 10 { index &+= 1 }
            if index == first { return nil }
        }
        return index
    }

    /// Why ``scanNumber(from:)`` refused the number starting at `start`.
    @inline(never)
    func numberError(from start: Int) -> JSONError {
        func digits(_ index: inout Int) -> Int {
            let start = index
            while index < count, base[index] &- UInt8(ascii: "0") < 10 { index &+= 1 }
            return index &- start
        }
        var index = start
        if base[index] == UInt8(ascii: "-") { index &+= 1 }
        guard index < count else { return JSONError(code: .unexpectedEnd, message: "input ends inside a number", offset: index) }
        if base[index] == UInt8(ascii: "0") {
            index &+= 1
        } else if digits(&index) == 0 {
            return syntax("a number needs digits", at: index)
        }
        if index < count, base[index] == UInt8(ascii: ".") {
            index &+= 1
            if digits(&index) == 0 { return syntax("a number needs digits after '.'", at: index) }
        }
        return syntax("a number needs digits in its exponent", at: index &+ (index &+ 1 < count && (base[index &+ 1] == 0x2B || base[index &+ 1] == 0x2D) ? 2 : 1))
    }

    /// The position after `literal` (`true`, `false` or `null`, whose first byte the caller
    /// has seen) at `start`, or nil when it is not there: one four-byte comparison.
    @_transparent
    func scanLiteral(_ literal: StaticString, at start: Int) -> Int? {
        let length = literal.utf8CodeUnitCount
        guard start &+ length <= count else { return nil }
        let tail = UnsafeRawPointer(literal.utf8Start + length - 4).loadUnaligned(as: UInt32.self)
        guard UnsafeRawPointer(base + start + length - 4).loadUnaligned(as: UInt32.self) == tail else { return nil }
        return start &+ length
    }

    /// Why ``scanLiteral(_:at:)`` refused: the first byte that differs, or the end.
    @inline(never)
    func literalError(_ literal: StaticString, at start: Int) -> JSONError {
        do {
            _ = try expectLiteral(literal, at: start)
        } catch {
            return error
        }
        return literalMismatch(literal, wordAt: start, at: start)
    }

    /// Checks that `literal` is at `start`, byte by byte; returns the position after it.
    func expectLiteral(_ literal: StaticString, at start: Int) throws(JSONError) -> Int {
        let length = literal.utf8CodeUnitCount
        for offset in 0..<length {
            guard start &+ offset < count else {
                throw JSONError(code: .unexpectedEnd, message: "input ends inside '\(literal)'", offset: count)
            }
            if base[start &+ offset] != literal.utf8Start[offset] {
                throw literalMismatch(literal, wordAt: start, at: start &+ offset)
            }
        }
        return start &+ length
    }

    /// `literal` was expected at `start` and the byte at `offset` differs: the error shows the
    /// word written there (`expected 'null', found 'not'`).
    func literalMismatch(_ literal: StaticString, wordAt start: Int, at offset: Int) -> JSONError {
        syntax("expected '\(literal)', found '\(word(at: start))'", at: offset)
    }

    /// The run of ASCII letters and digits at `start` (at most 16 bytes), so that an error can
    /// show what was written instead of a literal: `not` for `not json`, `nulL` for `nulL`.
    private func word(at start: Int) -> String {
        var end = start
        while end < count, end &- start < 16, isWordByte(base[end]) { end &+= 1 }
        return String(decoding: UnsafeBufferPointer(start: base + start, count: end &- start), as: UTF8.self)
    }

    private func isWordByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: false
        }
    }
}
