/// One value in a ``JSONIndex``: its kind and where its bytes are. Containers also record the
/// node after their last descendant, so siblings can be skipped in one step.
struct JSONNode {
    enum Kind: UInt8 {
        case null, bool, number, string, array, object
    }

    var kind: Kind
    /// For strings: the text contains escapes. For booleans: the value.
    var flag: Bool
    /// First byte (for strings, the byte after the opening quote).
    var start: UInt32
    /// One past the last byte (for strings, the closing quote).
    var end: UInt32
    /// The index of the next node that is not inside this one.
    var next: UInt32
}

/// A structural index of a JSON document: one pass over the bytes validates them and records
/// every value's kind and byte range in a flat array, without creating any strings.
///
/// Values are then read on demand, so a decoder only pays for the fields it asks for (custom
/// fields and attachments stay bytes until someone reads them).
struct JSONIndex: ~Copyable {
    private var storage: NodeBuffer

    /// Indexes `bytes`, validating them against RFC 8259.
    init(bytes: UnsafeRawBufferPointer, maximumDepth: Int) throws(JSONError) {
        guard bytes.count < Int(UInt32.max) else {
            throw JSONError(code: .syntax, message: "documents over 4 GiB are not supported")
        }
        var nodes = NodeBuffer(capacity: max(16, bytes.count / 10))
        var builder = IndexBuilder(bytes: bytes, maximumDepth: maximumDepth)
        do {
            try builder.run(into: &nodes)
        } catch {
            nodes.deallocate()
            throw error
        }
        storage = nodes
    }

    deinit { storage.deallocate() }

    /// The nodes, in document order (valid while the index lives).
    var nodes: UnsafeBufferPointer<JSONNode> { UnsafeBufferPointer(start: storage.base, count: storage.count) }
}

/// A growable array of nodes without Array's per-append bookkeeping: indexing appends one node
/// every dozen bytes, and this is the index's inner loop.
struct NodeBuffer {
    private(set) var base: UnsafeMutablePointer<JSONNode>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    @inline(__always)
    mutating func append(_ node: JSONNode) {
        if count == capacity { grow() }
        (base + count).initialize(to: node)
        count += 1
    }

    @inline(__always)
    subscript(position: Int) -> JSONNode {
        get { base[position] }
        nonmutating set { base[position] = newValue }
    }

    private mutating func grow() {
        let larger = UnsafeMutablePointer<JSONNode>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }

    func deallocate() { base.deallocate() }
}

private struct IndexBuilder {
    let base: UnsafePointer<UInt8>
    let count: Int
    let maximumDepth: Int
    var index = 0

    init(bytes: UnsafeRawBufferPointer, maximumDepth: Int) {
        self.base = bytes.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) } ?? UnsafePointer(bitPattern: 1)!
        self.count = bytes.count
        self.maximumDepth = maximumDepth
    }

    /// Validates and indexes the document.
    ///
    /// The grammar is followed by the shape of the code rather than a state variable: a member
    /// is key, colon, value; after a value comes a comma or the container's end. An earlier
    /// version dispatched on an "expected next token" state for every token, and that indirect
    /// jump mispredicted so often it took a fifth of the indexing time.
    mutating func run(into nodes: inout NodeBuffer) throws(JSONError) {
        // Open containers, as node positions; the node's kind says object or array.
        let open = UnsafeMutablePointer<UInt32>.allocate(capacity: maximumDepth + 1)
        defer { open.deallocate() }
        var depth = 0
        skipWhitespace()
        while true {
            // A value starts at `index` (whitespace already skipped).
            guard index < count else { throw unexpectedEnd("a value") }
            let byte = base[index]
            switch byte {
            case UInt8(ascii: "\""):
                try scanString(into: &nodes)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = byte == UInt8(ascii: "{")
                guard depth < maximumDepth else {
                    throw JSONError(
                        code: .nestingTooDeep, message: "arrays and objects nest deeper than \(maximumDepth) levels", offset: index)
                }
                open[depth] = offset(nodes.count)
                depth += 1
                nodes.append(JSONNode(kind: isObject ? .object : .array, flag: false, start: offset(index), end: 0, next: 0))
                index += 1
                skipWhitespace()
                guard index < count else { throw unexpectedEnd(isObject ? "an object key" : "a value") }
                if base[index] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    depth -= 1
                    close(Int(open[depth]), &nodes)
                } else {
                    if isObject { try readKey(into: &nodes) }
                    continue
                }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = index
                try scanNumber()
                nodes.append(JSONNode(kind: .number, flag: false, start: offset(start), end: offset(index), next: offset(nodes.count &+ 1)))
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                nodes.append(JSONNode(kind: .bool, flag: true, start: offset(index &- 4), end: offset(index), next: offset(nodes.count &+ 1)))
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                nodes.append(JSONNode(kind: .bool, flag: false, start: offset(index &- 5), end: offset(index), next: offset(nodes.count &+ 1)))
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                nodes.append(JSONNode(kind: .null, flag: false, start: offset(index &- 4), end: offset(index), next: offset(nodes.count &+ 1)))
            default:
                throw syntax("unexpected \(describeByte(byte)) where a value should start")
            }
            // A value is complete: a comma or the end of its container follows, or the document ends.
            while true {
                skipWhitespace()
                guard depth > 0 else {
                    guard index == count else { throw syntax("unexpected \(describeByte(base[index])) after the JSON value") }
                    return
                }
                guard index < count else { throw unexpectedEnd("',' or the end of an array or object") }
                let container = Int(open[depth - 1])
                let isObject = nodes[container].kind == .object
                let next = base[index]
                if next == UInt8(ascii: ",") {
                    index += 1
                    skipWhitespace()
                    if isObject { try readKey(into: &nodes) }
                    break
                }
                guard next == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    throw syntax("expected ',' or '\(isObject ? "}" : "]")', found \(describeByte(next))")
                }
                depth -= 1
                close(container, &nodes)
            }
        }
    }

    /// Reads `"key"` and `:` and the whitespace after them, leaving `index` on the value.
    @inline(__always)
    mutating func readKey(into nodes: inout NodeBuffer) throws(JSONError) {
        guard index < count else { throw unexpectedEnd("an object key") }
        guard base[index] == UInt8(ascii: "\"") else { throw syntax("expected a string key, found \(describeByte(base[index]))") }
        try scanString(into: &nodes)
        skipWhitespace()
        guard index < count else { throw unexpectedEnd("':'") }
        guard base[index] == UInt8(ascii: ":") else { throw syntax("expected ':' after an object key, found \(describeByte(base[index]))") }
        index += 1
        skipWhitespace()
    }

    @inline(__always)
    mutating func close(_ container: Int, _ nodes: inout NodeBuffer) {
        index += 1
        nodes[container].end = offset(index)
        nodes[container].next = offset(nodes.count)
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < count {
            let byte = base[index]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            index += 1
        }
    }

    func unexpectedEnd(_ expected: String) -> JSONError {
        JSONError(code: .unexpectedEnd, message: "input ends where \(expected) was expected", offset: index)
    }

    /// Finds the closing quote 16 bytes at a time, rejecting raw control characters and noting
    /// whether the string has escapes (which are validated when the string is read).
    @inline(__always)
    mutating func scanString(into nodes: inout NodeBuffer) throws(JSONError) {
        let start = index + 1
        var cursor = start
        var escaped = false
        while true {
            cursor = IndexBuilder.findSpecial(base, cursor, count)
            guard cursor < count else {
                index = count
                throw JSONError(code: .unexpectedEnd, message: "input ends inside a string", offset: count)
            }
            let byte = base[cursor]
            if byte == 0x22 { break }
            if byte == 0x5C {
                // Skip the escaped character so an escaped quote does not end the string.
                escaped = true
                cursor += 2
                continue
            }
            index = cursor
            throw syntax("control character \(describeByte(byte)) inside a string")
        }
        nodes.append(JSONNode(kind: .string, flag: escaped, start: offset(start), end: offset(cursor), next: offset(nodes.count &+ 1)))
        index = cursor + 1
    }

    /// The position of the first quote, backslash or control character at or after `start`.
    @inline(__always)
    static func findSpecial(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Int {
        var cursor = start
        let quote = SIMD16<UInt8>(repeating: 0x22)
        let backslash = SIMD16<UInt8>(repeating: 0x5C)
        let space = SIMD16<UInt8>(repeating: 0x20)
        while cursor &+ 16 <= end {
            let chunk = UnsafeRawPointer(base + cursor).loadUnaligned(as: SIMD16<UInt8>.self)
            let special = (chunk .== quote) .| (chunk .== backslash) .| (chunk .< space)
            if any(special) {
                // The first set lane from the mask's bytes (0x00 or 0xFF each): a lane-by-lane
                // loop compiled to a chain of sixteen tests and branches.
                let lanes = unsafeBitCast(special, to: SIMD2<UInt64>.self)
                let low = UInt64(littleEndian: lanes[0])
                if low != 0 { return cursor + low.trailingZeroBitCount &>> 3 }
                return cursor + 8 + UInt64(littleEndian: lanes[1]).trailingZeroBitCount &>> 3
            }
            cursor &+= 16
        }
        while cursor < end {
            let byte = base[cursor]
            if byte == 0x22 || byte == 0x5C || byte < 0x20 { return cursor }
            cursor += 1
        }
        return end
    }

    /// Checks the JSON number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    mutating func scanNumber() throws(JSONError) {
        func digits(_ index: inout Int) -> Int {
            let start = index
            while index < count, base[index] &- UInt8(ascii: "0") < 10 { index += 1 }
            return index - start
        }
        if base[index] == UInt8(ascii: "-") { index += 1 }
        guard index < count else { throw JSONError(code: .unexpectedEnd, message: "input ends inside a number", offset: index) }
        if base[index] == UInt8(ascii: "0") {
            index += 1
        } else if digits(&index) == 0 {
            throw syntax("a number needs digits")
        }
        if index < count, base[index] == UInt8(ascii: ".") {
            index += 1
            if digits(&index) == 0 { throw syntax("a number needs digits after '.'") }
        }
        if index < count, base[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < count, base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-") { index += 1 }
            if digits(&index) == 0 { throw syntax("a number needs digits in its exponent") }
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let length = literal.utf8CodeUnitCount
        for offset in 0..<length {
            guard index + offset < count else {
                index = count
                throw JSONError(code: .unexpectedEnd, message: "input ends inside '\(literal)'", offset: index)
            }
            if base[index + offset] != literal.utf8Start[offset] {
                index += offset
                throw syntax("invalid literal, expected '\(literal)'")
            }
        }
        index += length
    }

    func syntax(_ message: String) -> JSONError {
        JSONError(code: .syntax, message: message, offset: index)
    }

    /// A byte offset or node position as stored in a node. Documents are under 4 GiB (checked
    /// before indexing) and every node takes at least one byte, so neither can overflow.
    @inline(__always)
    func offset(_ value: Int) -> UInt32 { UInt32(truncatingIfNeeded: value) }
}

/// A readable name for a byte in error messages.
func describeByte(_ byte: UInt8) -> String {
    if byte >= 0x21, byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    return "byte 0x" + String(byte, radix: 16, uppercase: true)
}
