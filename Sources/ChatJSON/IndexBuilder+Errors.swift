/// The syntax errors, built out of line so that their string interpolations do not sit in the
/// scanning loop: valid input never runs this code.
extension IndexBuilder {
    /// Why ``readKey(from:into:)`` failed at `start`.
    @inline(never)
    func keyError(from start: Int) -> JSONError {
        guard start < count else { return unexpectedEnd("an object key", at: start) }
        guard base[start] == UInt8(ascii: "\"") else { return syntax("expected a string key, found \(describeByte(base[start]))", at: start) }
        let stop = stringStop(from: start).position
        guard stop < count, base[stop] == 0x22 else { return stringError(from: start) }
        let index = skipWhitespace(stop &+ 1)
        guard index < count else { return unexpectedEnd("':'", at: index) }
        return syntax("expected ':' after an object key, found \(describeByte(base[index]))", at: index)
    }

    @inline(never)
    func unexpectedEnd(_ expected: String, at offset: Int) -> JSONError {
        JSONError(code: .unexpectedEnd, message: "input ends where \(expected) was expected", offset: offset)
    }

    @inline(never)
    func syntax(_ message: String, at offset: Int) -> JSONError {
        JSONError(code: .syntax, message: message, offset: offset)
    }

    @inline(never)
    func nestingError(at offset: Int) -> JSONError {
        JSONError(code: .nestingTooDeep, message: "arrays and objects nest deeper than \(maximumDepth) levels", offset: offset)
    }

    @inline(never)
    func unexpectedByte(at offset: Int, _ context: StaticString) -> JSONError {
        syntax("unexpected \(describeByte(base[offset])) \(context)", at: offset)
    }

    @inline(never)
    func separatorError(at offset: Int, inObject: Bool) -> JSONError {
        syntax("expected ',' or '\(inObject ? "}" : "]")', found \(describeByte(base[offset]))", at: offset)
    }
}
