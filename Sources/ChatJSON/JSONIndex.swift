/// One value in a ``JSONIndex``: its kind and where its bytes are. Containers also record the
/// node after their last descendant, so siblings can be skipped in one step.
package struct JSONNode {
    package enum Kind: UInt8 {
        case null, bool, number, string, array, object
    }

    package var kind: Kind
    /// For strings: the text contains escapes. For booleans: the value.
    package var flag: Bool
    /// First byte (for strings, the byte after the opening quote).
    package var start: UInt32
    /// One past the last byte (for strings, the closing quote).
    package var end: UInt32
    /// The index of the next node that is not inside this one.
    package var next: UInt32
}

/// A structural index of a JSON document: one pass over the bytes validates them and records
/// every value's kind and byte range in a flat array, without creating any strings.
///
/// Values are then read on demand, so a decoder only pays for the fields it asks for (custom
/// fields and attachments stay bytes until someone reads them). The node array and the stack
/// of open containers come from the thread's ``IndexScratch`` and go back to it, so indexing
/// allocates nothing once the thread has indexed a document of that size.
package struct JSONIndex: ~Copyable {
    private var storage: NodeBuffer
    private let open: UnsafeMutablePointer<UInt32>
    private let openCapacity: Int

    /// Indexes `bytes`, validating them against RFC 8259.
    package init(bytes: UnsafeRawBufferPointer, maximumDepth: Int) throws(JSONError) {
        guard bytes.count < Int(UInt32.max) else {
            throw JSONError(code: .syntax, message: "documents over 4 GiB are not supported")
        }
        // Up to `reservedLimit` bytes, room for as many nodes as the document can hold is taken
        // up front, so that appending a node needs no capacity check (the check and the spills
        // around it were about a twentieth of indexing); larger documents grow their array.
        // Nothing nests deeper than the document has bytes, so a limit above that (or below
        // zero) changes nothing but the size of the stack of open containers and of the node
        // bound, which it would overflow (`Int.max`) or make negative.
        let depthLimit = min(max(maximumDepth, 0), bytes.count)
        let reserved = bytes.count <= JSONIndex.reservedLimit
        let scratch = IndexScratch.take(
            nodes: reserved ? JSONIndex.nodeBound(bytes: bytes.count, maximumDepth: depthLimit) : max(16, bytes.count / 10),
            depth: depthLimit + 1)
        var nodes = NodeBuffer(base: scratch.nodes, capacity: scratch.nodeCapacity)
        do {
            if reserved {
                try IndexBuilder<ReservedCapacity>(bytes: bytes, maximumDepth: depthLimit).run(into: &nodes, open: scratch.open)
            } else {
                try IndexBuilder<GrowingCapacity>(bytes: bytes, maximumDepth: depthLimit).run(into: &nodes, open: scratch.open)
            }
        } catch {
            IndexScratch.giveBack(nodes: nodes.base, capacity: nodes.capacity, open: scratch.open, capacity: scratch.openCapacity)
            throw error
        }
        storage = nodes
        open = scratch.open
        openCapacity = scratch.openCapacity
    }

    /// The largest document whose node array is reserved whole before indexing (512 KiB of
    /// nodes at most).
    static let reservedLimit = 64 * 1024

    /// The most nodes indexing `bytes` bytes can append, valid or not.
    ///
    /// In a complete document each node but the root is followed by a separator or closes its
    /// container, and each container takes two brackets, so `n` bytes hold at most `(n + 1) / 2`
    /// nodes. Input cut short or broken off by an error can leave up to `maximumDepth`
    /// containers open, whose closing brackets are missing, and one key without its value.
    static func nodeBound(bytes: Int, maximumDepth: Int) -> Int { (bytes + maximumDepth) / 2 + 4 }

    deinit { IndexScratch.giveBack(nodes: storage.base, capacity: storage.capacity, open: open, capacity: openCapacity) }

    /// The nodes, in document order (valid while the index lives).
    package var nodes: UnsafeBufferPointer<JSONNode> { UnsafeBufferPointer(start: storage.base, count: storage.count) }
}

/// A growable array of nodes without Array's per-append bookkeeping: indexing appends one node
/// every dozen bytes, and this is the index's inner loop.
struct NodeBuffer {
    private(set) var base: UnsafeMutablePointer<JSONNode>
    private(set) var count = 0
    private(set) var capacity: Int

    /// A buffer filling `base`, which holds `capacity` nodes; growing replaces it.
    package init(base: UnsafeMutablePointer<JSONNode>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    /// Appends `node`; `reserved` says the capacity was checked for the whole document.
    @inline(__always)
    package mutating func append(_ node: JSONNode, reserved: Bool = false) {
        if !reserved, count == capacity { grow() }
        (base + count).initialize(to: node)
        count &+= 1
    }

    @inline(__always)
    package subscript(position: Int) -> JSONNode {
        get { base[position] }
        nonmutating set { base[position] = newValue }
    }

    @inline(never)
    private mutating func grow() {
        let larger = UnsafeMutablePointer<JSONNode>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }
}

/// Whether an ``IndexBuilder`` appends to a node array reserved for the whole document
/// (``JSONIndex/nodeBound(bytes:maximumDepth:)``) or to one that grows: a type parameter, so
/// that each builds its own loop with the check folded away.
private protocol NodeCapacity {
    static var isReserved: Bool { get }
}

private enum ReservedCapacity: NodeCapacity {
    static var isReserved: Bool { true }
}

private enum GrowingCapacity: NodeCapacity {
    static var isReserved: Bool { false }
}

private struct IndexBuilder<Capacity: NodeCapacity> {
    package let base: UnsafePointer<UInt8>
    package let count: Int
    package let maximumDepth: Int

    package init(bytes: UnsafeRawBufferPointer, maximumDepth: Int) {
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
    ///
    /// The position is a local that the scanning helpers take and return: as a stored property
    /// it went through memory at every call, and the whole scan is one chain of dependent
    /// position updates.
    ///
    /// `open` holds the open containers, as node positions (the node's kind says object or
    /// array): room for `maximumDepth + 1`.
    func run(into output: inout NodeBuffer, open: UnsafeMutablePointer<UInt32>) throws(JSONError) {
        // A local copy, which the optimizer keeps in registers: through the `inout` it loaded and
        // stored the buffer's count at every node.
        var nodes = output
        defer { output = nodes }
        var depth = 0
        var index = skipWhitespace(0)
        while true {
            // A value starts at `index` (whitespace already skipped).
            guard index < count else { throw unexpectedEnd("a value", at: index) }
            let byte = base[index]
            switch byte {
            case UInt8(ascii: "\""):
                guard let end = scanString(from: index, into: &nodes) else { throw stringError(from: index) }
                index = end
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = byte == UInt8(ascii: "{")
                guard depth < maximumDepth else { throw nestingError(at: index) }
                open[depth] = offset(nodes.count)
                depth += 1
                append(JSONNode(kind: isObject ? .object : .array, flag: false, start: offset(index), end: 0, next: 0), to: &nodes)
                index = skipWhitespace(index &+ 1)
                guard index < count else { throw unexpectedEnd(isObject ? "an object key" : "a value", at: index) }
                if base[index] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    depth -= 1
                    index &+= 1
                    close(Int(open[depth]), at: index, &nodes)
                } else {
                    if isObject {
                        guard let value = readKey(from: index, into: &nodes) else { throw keyError(from: index) }
                        index = value
                    }
                    continue
                }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = index
                guard let end = scanNumber(from: index) else { throw numberError(from: index) }
                index = end
                append(JSONNode(kind: .number, flag: false, start: offset(start), end: offset(index), next: offset(nodes.count &+ 1)), to: &nodes)
            case UInt8(ascii: "t"):
                guard let end = scanLiteral("true", at: index) else { throw literalError("true", at: index) }
                index = end
                append(JSONNode(kind: .bool, flag: true, start: offset(index &- 4), end: offset(index), next: offset(nodes.count &+ 1)), to: &nodes)
            case UInt8(ascii: "f"):
                guard let end = scanLiteral("false", at: index) else { throw literalError("false", at: index) }
                index = end
                append(JSONNode(kind: .bool, flag: false, start: offset(index &- 5), end: offset(index), next: offset(nodes.count &+ 1)), to: &nodes)
            case UInt8(ascii: "n"):
                guard let end = scanLiteral("null", at: index) else { throw literalError("null", at: index) }
                index = end
                append(JSONNode(kind: .null, flag: false, start: offset(index &- 4), end: offset(index), next: offset(nodes.count &+ 1)), to: &nodes)
            default:
                throw unexpectedByte(at: index, "where a value should start")
            }
            // A value is complete: a comma or the end of its container follows, or the document ends.
            while true {
                index = skipWhitespace(index)
                guard depth > 0 else {
                    guard index == count else { throw unexpectedByte(at: index, "after the JSON value") }
                    return
                }
                guard index < count else { throw unexpectedEnd("',' or the end of an array or object", at: index) }
                let container = Int(open[depth - 1])
                let isObject = nodes[container].kind == .object
                let next = base[index]
                if next == UInt8(ascii: ",") {
                    index = skipWhitespace(index &+ 1)
                    if isObject {
                        guard let value = readKey(from: index, into: &nodes) else { throw keyError(from: index) }
                        index = value
                    }
                    break
                }
                guard next == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { throw separatorError(at: index, inObject: isObject) }
                depth -= 1
                index &+= 1
                close(container, at: index, &nodes)
            }
        }
    }

    /// Reads `"key"` and `:` and the whitespace after them; returns where the value starts, or
    /// nil when they are not there (``keyError(from:)`` says why).
    ///
    /// This and ``scanString(from:into:)`` do not throw: on valid input they carry no
    /// error-building code, and the rare failure is diagnosed again out of line.
    @_transparent
    func readKey(from start: Int, into nodes: inout NodeBuffer) -> Int? {
        guard start < count, base[start] == UInt8(ascii: "\""), let end = scanString(from: start, into: &nodes) else { return nil }
        let index = skipWhitespace(end)
        guard index < count, base[index] == UInt8(ascii: ":") else { return nil }
        return skipWhitespace(index &+ 1)
    }

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

    /// Appends `node`, without a capacity check when the array was reserved for the document.
    @_transparent
    package func append(_ node: JSONNode, to nodes: inout NodeBuffer) {
        nodes.append(node, reserved: Capacity.isReserved)
    }

    /// Records where a container ends (`end` is one past its closing bracket).
    @_transparent
    package func close(_ container: Int, at end: Int, _ nodes: inout NodeBuffer) {
        nodes[container].end = offset(end)
        nodes[container].next = offset(nodes.count)
    }

    /// The first position at or after `start` that is not JSON whitespace.
    @_transparent
    func skipWhitespace(_ start: Int) -> Int {
        var index = start
        while index < count {
            let byte = base[index]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return index }
            index &+= 1
        }
        return index
    }

    @inline(never)
    package func unexpectedEnd(_ expected: String, at offset: Int) -> JSONError {
        JSONError(code: .unexpectedEnd, message: "input ends where \(expected) was expected", offset: offset)
    }

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

    @inline(never)
    package func syntax(_ message: String, at offset: Int) -> JSONError {
        JSONError(code: .syntax, message: message, offset: offset)
    }

    // The errors `run` throws, built out of line so that their string interpolations do not
    // sit in the scanning loop.

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

    /// A byte offset or node position as stored in a node. Documents are under 4 GiB (checked
    /// before indexing) and every node takes at least one byte, so neither can overflow.
    @inline(__always)
    package func offset(_ value: Int) -> UInt32 { UInt32(truncatingIfNeeded: value) }
}

/// A readable name for a byte in error messages.
func describeByte(_ byte: UInt8) -> String {
    if byte >= 0x21, byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    return "byte 0x" + String(byte, radix: 16, uppercase: true)
}
