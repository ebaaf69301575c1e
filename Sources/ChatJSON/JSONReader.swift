import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads values out of an indexed JSON document. Only valid inside ``JSONReader/read(_:maximumDepth:_:)``,
/// which keeps the bytes alive.
package struct JSONReader {
    package let base: UnsafePointer<UInt8>
    package let nodes: UnsafeBufferPointer<JSONNode>
    /// The document, for values kept as byte slices (lazy custom fields, attachments). A
    /// pointer rather than a `Data` so that copying a reader costs no reference counting.
    let sourcePointer: UnsafePointer<Data>
    /// Dates and channel ids read so far, so that one the document repeats is made once.
    package let memo: UnsafeMutablePointer<ReaderMemo>

    /// The document.
    package var source: Data { sourcePointer.pointee }

    /// Indexes `data` and runs `body` with a reader positioned on node 0 (the root).
    package static func read<R>(_ data: Data, maximumDepth: Int = JSONParser.defaultMaximumDepth, _ body: (JSONReader) throws(JSONError) -> R)
        throws(JSONError) -> R
    {
        do {
            return try data.withUnsafeBytes { buffer in
                let index = try JSONIndex(bytes: buffer, maximumDepth: maximumDepth)
                let base = buffer.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) } ?? UnsafePointer(bitPattern: 1)!
                let nodes = index.nodes
                return try withExtendedLifetime(index) {
                    try withUnsafePointer(to: data) { source in
                        var memo = ReaderMemo()
                        return try withUnsafeMutablePointer(to: &memo) { memo in
                            try body(JSONReader(base: base, nodes: nodes, sourcePointer: source, memo: memo))
                        }
                    }
                }
            }
        } catch let error as JSONError {
            throw error
        } catch {
            // Only JSONError is ever thrown inside; `withUnsafeBytes` just forgets the type.
            throw JSONError(code: .syntax, message: "\(error)")
        }
    }

    // MARK: Structure

    @inline(__always) package func kind(_ node: Int) -> JSONNode.Kind { nodes[node].kind }
    @inline(__always) package func isNull(_ node: Int) -> Bool { nodes[node].kind == .null }
    @inline(__always) package func next(_ node: Int) -> Int { Int(nodes[node].next) }

    /// The members of an object: (key node, value node) pairs, in order.
    package func members(_ object: Int) -> MemberSequence { MemberSequence(reader: self, object: object) }

    /// The elements of an array, in order.
    package func elements(_ array: Int) -> ElementSequence { ElementSequence(reader: self, array: array) }

    package struct MemberSequence: Sequence, IteratorProtocol {
        package let reader: JSONReader
        package var cursor: Int
        package let end: Int
        package init(reader: JSONReader, object: Int) {
            self.reader = reader
            self.cursor = object + 1
            self.end = Int(reader.nodes[object].next)
        }
        package mutating func next() -> (key: Int, value: Int)? {
            guard cursor < end else { return nil }
            let key = cursor
            let value = cursor + 1
            cursor = Int(reader.nodes[value].next)
            return (key, value)
        }
    }

    package struct ElementSequence: Sequence, IteratorProtocol {
        package let reader: JSONReader
        package var cursor: Int
        package let end: Int
        package init(reader: JSONReader, array: Int) {
            self.reader = reader
            self.cursor = array + 1
            self.end = Int(reader.nodes[array].next)
        }
        package mutating func next() -> Int? {
            guard cursor < end else { return nil }
            defer { cursor = Int(reader.nodes[cursor].next) }
            return cursor
        }
    }

    /// The number of members or elements of a container.
    package func childCount(_ node: Int) -> Int {
        var count = 0
        var cursor = node + 1
        let end = Int(nodes[node].next)
        let step = nodes[node].kind == .object ? 2 : 1
        while cursor < end {
            count += 1
            if step == 2 { cursor += 1 }
            cursor = Int(nodes[cursor].next)
        }
        return count
    }

    /// The value of the member named `key`, the last one if repeated.
    package func member(_ object: Int, _ key: String) -> Int? {
        var key = key
        return key.withUTF8 { member(object, utf8: $0) }
    }

    /// The value of the member whose key's UTF-8 is `utf8`, the last one if repeated.
    ///
    /// Compares lengths before bytes: most members of an object differ from the key sought in
    /// length, and the walk over the members is the whole cost of a lookup.
    package func member(_ object: Int, utf8: UnsafeBufferPointer<UInt8>) -> Int? {
        var found: Int?
        var cursor = object &+ 1
        let end = Int(nodes[object].next)
        let length = utf8.count
        while cursor < end {
            let entry = nodes[cursor]
            if entry.flag {
                if keyEquals(cursor, utf8) { found = cursor &+ 1 }
            } else if Int(entry.end &- entry.start) == length {
                if length == 0 || memcmp(base + Int(entry.start), utf8.baseAddress!, length) == 0 { found = cursor &+ 1 }
            }
            cursor = Int(nodes[cursor &+ 1].next)
        }
        return found
    }

    /// Whether a string node equals `utf8` (unescaping only when the key has escapes).
    func keyEquals(_ node: Int, _ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        let entry = nodes[node]
        if entry.flag { return (try? string(node))?.utf8.elementsEqual(utf8) ?? false }
        let length = Int(entry.end - entry.start)
        guard length == utf8.count else { return false }
        guard length > 0, let other = utf8.baseAddress else { return true }
        return memcmp(base + Int(entry.start), other, length) == 0
    }

    /// One past the root value's last byte: every key lies before it.
    var documentEnd: UnsafePointer<UInt8> { base + Int(nodes[0].end) }

    /// The raw bytes of a key node, for key-table lookups (nil when the key has escapes).
    package func keyBytes(_ node: Int) -> UnsafeBufferPointer<UInt8>? {
        let entry = nodes[node]
        if entry.flag { return nil }
        return UnsafeBufferPointer(start: base + Int(entry.start), count: Int(entry.end - entry.start))
    }

    // MARK: Scalars

    package func string(_ node: Int) throws(JSONError) -> String {
        let entry = nodes[node]
        let raw = UnsafeBufferPointer(start: base + Int(entry.start), count: Int(entry.end - entry.start))
        return try JSONReader.text(raw, escaped: entry.flag, offset: Int(entry.start))
    }

    /// The text of a string's bytes between its quotes (at `offset` in the document), unescaped
    /// when it has escapes.
    @inline(__always)
    package static func text(_ raw: UnsafeBufferPointer<UInt8>, escaped: Bool, offset: Int) throws(JSONError) -> String {
        guard escaped else { return String(decoding: raw, as: UTF8.self) }
        return try unescape(raw, offset: offset)
    }

    /// The text of a number node, exactly as written.
    func numberLiteral(_ node: Int) -> String {
        let entry = nodes[node]
        return String(decoding: UnsafeBufferPointer(start: base + Int(entry.start), count: Int(entry.end - entry.start)), as: UTF8.self)
    }

    /// A number node as an integer of type `I`, parsed from the bytes; nil if it is not an
    /// integer that fits.
    package func integer<I: FixedWidthInteger>(_ node: Int, as type: I.Type) -> I? {
        let entry = nodes[node]
        var cursor = Int(entry.start)
        let end = Int(entry.end)
        let negative = base[cursor] == UInt8(ascii: "-")
        if negative { cursor += 1 }
        var value: I = 0
        while cursor < end {
            let digit = base[cursor] &- UInt8(ascii: "0")
            guard digit < 10 else {
                // A fraction or exponent: accept it when the value is still a whole number.
                guard let double = Double(numberLiteral(node)), double == double.rounded(.towardZero) else { return nil }
                return I(exactly: double)
            }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) =
                negative
                ? times10.subtractingReportingOverflow(I(digit)) : times10.addingReportingOverflow(I(digit))
            if overflow1 || overflow2 { return nil }
            value = next
            cursor += 1
        }
        return value
    }

    package func double(_ node: Int) -> Double? {
        let entry = nodes[node]
        let length = Int(entry.end - entry.start)
        // Short integers are common and exact as Double; skip the string round trip for them.
        if length < 16, let whole = integer(node, as: Int.self) { return Double(whole) }
        guard let value = Double(numberLiteral(node)), value.isFinite else { return nil }
        return value
    }

    package func date(_ node: Int) -> Date? {
        let entry = nodes[node]
        return memo.pointee.date(UnsafeBufferPointer(start: base + Int(entry.start), count: Int(entry.end - entry.start)), parse: RFC3339.parse)
    }

    /// The document bytes of a node: a container or scalar exactly as written (strings with quotes).
    package func slice(_ node: Int) -> Data {
        let entry = nodes[node]
        var start = Int(entry.start)
        var end = Int(entry.end)
        if entry.kind == .string {
            start -= 1
            end += 1
        }
        let origin = sourcePointer.pointee.startIndex
        return sourcePointer.pointee[(origin + start)..<(origin + end)]
    }

    /// The byte range of a container node within the document.
    package func range(_ node: Int) -> Range<Int> {
        Int(nodes[node].start)..<Int(nodes[node].end)
    }

    // MARK: Materializing

    /// Builds the ``RawJSON`` tree of a node.
    package func rawJSON(_ node: Int) throws(JSONError) -> RawJSON {
        switch nodes[node].kind {
        case .null: return .null
        case .bool: return .bool(nodes[node].flag)
        case .number: return .number(JSONNumber(validatedLiteral: numberLiteral(node)))
        case .string: return .string(try string(node))
        case .array:
            var values: [RawJSON] = []
            for element in elements(node) { values.append(try rawJSON(element)) }
            return .array(values)
        case .object:
            var object = JSONObject(reservingCapacity: 8)
            for (key, value) in members(node) { object.appendMember(try string(key), try rawJSON(value)) }
            return .object(object)
        }
    }

    // MARK: Escapes

    /// Decodes a string with escapes straight into the String's storage: runs without a
    /// backslash are copied whole, and an escape never makes the text longer than it was.
    static func unescape(_ raw: UnsafeBufferPointer<UInt8>, offset: Int) throws(JSONError) -> String {
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

/// Parses JSON into ``RawJSON`` trees.
///
/// Strict (RFC 8259) and never trapping: syntax errors, strings that are not UTF-8, truncation
/// and excessive nesting throw a ``JSONError`` with the byte offset. Numbers keep their text,
/// so huge numbers parse.
public struct JSONParser: Sendable {
    /// Arrays and objects may nest this deep by default; deeper input is refused.
    public static let defaultMaximumDepth = 256

    /// The deepest nesting accepted.
    public var maximumDepth: Int

    /// A parser.
    public init(maximumDepth: Int = JSONParser.defaultMaximumDepth) {
        self.maximumDepth = maximumDepth
    }

    /// Parses one JSON document; only whitespace may follow it.
    public func parse(_ data: Data) throws(JSONError) -> RawJSON {
        try JSONReader.read(data, maximumDepth: maximumDepth) { reader throws(JSONError) in try reader.rawJSON(0) }
    }

    /// Parses one JSON document from bytes.
    public func parse(_ bytes: [UInt8]) throws(JSONError) -> RawJSON {
        try parse(Data(bytes))
    }

    /// Parses one JSON document from a string.
    public func parse(_ text: String) throws(JSONError) -> RawJSON {
        try parse(Data(text.utf8))
    }
}
