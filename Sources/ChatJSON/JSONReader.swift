import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads values out of an indexed JSON document. Only valid inside ``JSONReader/read(_:maximumDepth:_:)``,
/// which keeps the bytes alive.
@_spi(JSONEngine) public struct JSONReader {
    @_spi(JSONEngine) public let base: UnsafePointer<UInt8>
    @_spi(JSONEngine) public let nodes: UnsafeBufferPointer<JSONNode>
    /// The document, for values kept as byte slices (lazy custom fields, attachments). A
    /// pointer rather than a `Data` so that copying a reader costs no reference counting.
    @usableFromInline let sourcePointer: UnsafePointer<Data>
    /// Dates and channel ids read so far, so that one the document repeats is made once.
    @_spi(JSONEngine) public let memo: UnsafeMutablePointer<ReaderMemo>

    /// The document.
    @_spi(JSONEngine) public var source: Data { sourcePointer.pointee }

    /// Indexes `data` and runs `body` with a reader positioned on node 0 (the root).
    @_spi(JSONEngine) public static func read<R>(_ data: Data, maximumDepth: Int = JSONParser.defaultMaximumDepth, _ body: (JSONReader) throws(JSONError) -> R)
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

    @inline(__always) @inlinable @_spi(JSONEngine) public func kind(_ node: Int) -> JSONNode.Kind { nodes[node].kind }
    @inline(__always) @inlinable @_spi(JSONEngine) public func isNull(_ node: Int) -> Bool { nodes[node].kind == .null }
    @inline(__always) @inlinable @_spi(JSONEngine) public func next(_ node: Int) -> Int { Int(nodes[node].next) }

    /// The members of an object: (key node, value node) pairs, in order.
    @inlinable @_spi(JSONEngine) public func members(_ object: Int) -> MemberSequence { MemberSequence(reader: self, object: object) }

    /// The elements of an array, in order.
    @inlinable @_spi(JSONEngine) public func elements(_ array: Int) -> ElementSequence { ElementSequence(reader: self, array: array) }

    @_spi(JSONEngine) public struct MemberSequence: Sequence, IteratorProtocol {
        @_spi(JSONEngine) public let reader: JSONReader
        @_spi(JSONEngine) public var cursor: Int
        @_spi(JSONEngine) public let end: Int
        @inlinable @_spi(JSONEngine) public init(reader: JSONReader, object: Int) {
            self.reader = reader
            self.cursor = object + 1
            self.end = Int(reader.nodes[object].next)
        }
        @inlinable @_spi(JSONEngine) public mutating func next() -> (key: Int, value: Int)? {
            guard cursor < end else { return nil }
            let key = cursor
            let value = cursor + 1
            cursor = Int(reader.nodes[value].next)
            return (key, value)
        }
    }

    @_spi(JSONEngine) public struct ElementSequence: Sequence, IteratorProtocol {
        @_spi(JSONEngine) public let reader: JSONReader
        @_spi(JSONEngine) public var cursor: Int
        @_spi(JSONEngine) public let end: Int
        @inlinable @_spi(JSONEngine) public init(reader: JSONReader, array: Int) {
            self.reader = reader
            self.cursor = array + 1
            self.end = Int(reader.nodes[array].next)
        }
        @inlinable @_spi(JSONEngine) public mutating func next() -> Int? {
            guard cursor < end else { return nil }
            defer { cursor = Int(reader.nodes[cursor].next) }
            return cursor
        }
    }

    /// The number of members or elements of a container.
    @inlinable @_spi(JSONEngine) public func childCount(_ node: Int) -> Int {
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
    @inlinable @_spi(JSONEngine) public func member(_ object: Int, _ key: String) -> Int? {
        var key = key
        return key.withUTF8 { member(object, utf8: $0) }
    }

    /// The value of the member whose key's UTF-8 is `utf8`, the last one if repeated.
    ///
    /// Compares lengths before bytes: most members of an object differ from the key sought in
    /// length, and the walk over the members is the whole cost of a lookup.
    @inlinable @_spi(JSONEngine) public func member(_ object: Int, utf8: UnsafeBufferPointer<UInt8>) -> Int? {
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
    @inlinable func keyEquals(_ node: Int, _ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        let entry = nodes[node]
        if entry.flag { return (try? string(node))?.utf8.elementsEqual(utf8) ?? false }
        let length = Int(entry.end - entry.start)
        guard length == utf8.count else { return false }
        guard length > 0, let other = utf8.baseAddress else { return true }
        return memcmp(base + Int(entry.start), other, length) == 0
    }

    /// One past the root value's last byte: every key lies before it.
    @usableFromInline var documentEnd: UnsafePointer<UInt8> { base + Int(nodes[0].end) }

    /// The raw bytes of a key node, for key-table lookups (nil when the key has escapes).
    @inlinable @_spi(JSONEngine) public func keyBytes(_ node: Int) -> UnsafeBufferPointer<UInt8>? {
        let entry = nodes[node]
        if entry.flag { return nil }
        return UnsafeBufferPointer(start: base + Int(entry.start), count: Int(entry.end - entry.start))
    }

    // MARK: Scalars

    @inlinable @_spi(JSONEngine) public func string(_ node: Int) throws(JSONError) -> String {
        let entry = nodes[node]
        let raw = UnsafeBufferPointer(start: base + Int(entry.start), count: Int(entry.end - entry.start))
        return try JSONReader.text(raw, escaped: entry.flag, offset: Int(entry.start))
    }

    /// The text of a string's bytes between its quotes (at `offset` in the document), unescaped
    /// when it has escapes.
    @inline(__always)
    @inlinable @_spi(JSONEngine) public static func text(_ raw: UnsafeBufferPointer<UInt8>, escaped: Bool, offset: Int) throws(JSONError) -> String {
        guard escaped else { return String(decoding: raw, as: UTF8.self) }
        return try unescape(raw, offset: offset)
    }

    /// The text of a number node, exactly as written.
    @usableFromInline func numberLiteral(_ node: Int) -> String {
        let entry = nodes[node]
        return String(decoding: UnsafeBufferPointer(start: base + Int(entry.start), count: Int(entry.end - entry.start)), as: UTF8.self)
    }

    /// A number node as an integer of type `I`, parsed from the bytes; nil if it is not an
    /// integer that fits.
    @inlinable @_spi(JSONEngine) public func integer<I: FixedWidthInteger>(_ node: Int, as type: I.Type) -> I? {
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

    @inlinable @_spi(JSONEngine) public func double(_ node: Int) -> Double? {
        let entry = nodes[node]
        let length = Int(entry.end - entry.start)
        // Short integers are common and exact as Double; skip the string round trip for them.
        if length < 16, let whole = integer(node, as: Int.self) { return Double(whole) }
        guard let value = Double(numberLiteral(node)), value.isFinite else { return nil }
        return value
    }

    @inlinable @_spi(JSONEngine) public func date(_ node: Int) -> Date? {
        let entry = nodes[node]
        return memo.pointee.date(UnsafeBufferPointer(start: base + Int(entry.start), count: Int(entry.end - entry.start)), parse: RFC3339.parse)
    }

    /// The document bytes of a node: a container or scalar exactly as written (strings with quotes).
    @_spi(JSONEngine) public func slice(_ node: Int) -> Data {
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
    @inlinable @_spi(JSONEngine) public func range(_ node: Int) -> Range<Int> {
        Int(nodes[node].start)..<Int(nodes[node].end)
    }

    // MARK: Materializing

    /// Builds the ``RawJSON`` tree of a node.
    @_spi(JSONEngine) public func rawJSON(_ node: Int) throws(JSONError) -> RawJSON {
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
}
