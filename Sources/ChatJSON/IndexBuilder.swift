/// Whether an ``IndexBuilder`` appends to a node array reserved for the whole document
/// (``JSONIndex/nodeBound(bytes:maximumDepth:)``) or to one that grows: a type parameter, so
/// that each builds its own loop with the check folded away.
protocol NodeCapacity {
    static var isReserved: Bool { get }
}

enum ReservedCapacity: NodeCapacity {
    static var isReserved: Bool { true }
}

enum GrowingCapacity: NodeCapacity {
    static var isReserved: Bool { false }
}

struct IndexBuilder<Capacity: NodeCapacity> {
    let base: UnsafePointer<UInt8>
    let count: Int
    let maximumDepth: Int

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

    /// Appends `node`, without a capacity check when the array was reserved for the document.
    @_transparent
    func append(_ node: JSONNode, to nodes: inout NodeBuffer) {
        nodes.append(node, reserved: Capacity.isReserved)
    }

    /// Records where a container ends (`end` is one past its closing bracket).
    @_transparent
    func close(_ container: Int, at end: Int, _ nodes: inout NodeBuffer) {
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
