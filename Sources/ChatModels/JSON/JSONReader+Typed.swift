import Foundation

/// Strict typed reads for the hand-written model decoders. Errors carry no path; callers put
/// the field name in front as the error travels up, so success costs nothing extra.
extension JSONReader {
    func mismatch(_ node: Int, expected: String) -> JSONError {
        let found = (try? rawJSON(node)).map { "\($0.kindDescription) \($0.shortDescription)" } ?? "an invalid value"
        return .typeMismatch(expected: expected, found: found)
    }

    func readString(_ node: Int) throws(JSONError) -> String {
        guard kind(node) == .string else { throw mismatch(node, expected: "a string") }
        return try string(node)
    }

    func readOptionalString(_ node: Int) throws(JSONError) -> String? {
        isNull(node) ? nil : try readString(node)
    }

    func readBool(_ node: Int) throws(JSONError) -> Bool {
        guard kind(node) == .bool else { throw mismatch(node, expected: "a boolean") }
        return nodes[node].flag
    }

    func readOptionalBool(_ node: Int) throws(JSONError) -> Bool? {
        isNull(node) ? nil : try readBool(node)
    }

    func readInt(_ node: Int) throws(JSONError) -> Int {
        guard kind(node) == .number else { throw mismatch(node, expected: "an integer") }
        guard let value = integer(node, as: Int.self) else {
            throw .invalid("number \(numberLiteral(node)) is not an integer that fits in Int")
        }
        return value
    }

    func readOptionalInt(_ node: Int) throws(JSONError) -> Int? {
        isNull(node) ? nil : try readInt(node)
    }

    func readOptionalDate(_ node: Int) throws(JSONError) -> Date? {
        switch kind(node) {
        case .null: return nil
        case .string:
            guard let value = date(node) else { throw .invalid("\"\(try string(node))\" is not an RFC 3339 date") }
            return value
        default: throw mismatch(node, expected: "a date string")
        }
    }

    func readObject(_ node: Int) throws(JSONError) -> Int {
        guard kind(node) == .object else { throw mismatch(node, expected: "an object") }
        return node
    }

    func readModel<M: ReaderDecodable>(_ type: M.Type, _ node: Int) throws(JSONError) -> M {
        try M(reader: self, node: node)
    }

    func readOptionalModel<M: ReaderDecodable>(_ type: M.Type, _ node: Int) throws(JSONError) -> M? {
        isNull(node) ? nil : try M(reader: self, node: node)
    }

    /// The model at `node` (nil for `null`) read into `slot`, in place where the model can.
    func readOptionalModel<M: ReaderDecodable>(into slot: inout M?, _ node: Int) throws(JSONError) {
        try M.read(into: &slot, self, node)
    }

    func readModels<M: ReaderDecodable>(_ type: M.Type, _ node: Int) throws(JSONError) -> [M] {
        if isNull(node) { return [] }
        guard kind(node) == .array else { throw mismatch(node, expected: "an array") }
        var models: [M] = []
        var position = 0
        for element in elements(node) {
            do {
                models.append(try M(reader: self, node: element))
            } catch {
                throw error.prefixed(index: position)
            }
            position += 1
        }
        return models
    }

    func readIntMap(_ node: Int) throws(JSONError) -> [String: Int] {
        if isNull(node) { return [:] }
        guard kind(node) == .object else { throw mismatch(node, expected: "an object") }
        var map: [String: Int] = [:]
        for (key, value) in members(node) {
            let name = try string(key)
            do {
                map[name] = try readInt(value)
            } catch {
                throw error.prefixed(name)
            }
        }
        return map
    }

    /// A channel id (`type:id`) read straight from the bytes.
    func readChannelId(_ node: Int) throws(JSONError) -> ChannelId {
        guard kind(node) == .string else { throw mismatch(node, expected: "a channel id string") }
        let entry = nodes[node]
        let start = Int(entry.start)
        let end = Int(entry.end)
        if !entry.flag {
            var colon = start
            while colon < end, base[colon] != UInt8(ascii: ":") { colon += 1 }
            let type = UnsafeBufferPointer(start: base + start, count: colon - start)
            let id = UnsafeBufferPointer(start: base + colon + 1, count: max(0, end - colon - 1))
            if colon < end, ChannelId.isValidPart(type), ChannelId.isValidPart(id) {
                return ChannelId(
                    type: ChannelType(rawValue: String(decoding: type, as: UTF8.self)), id: String(decoding: id, as: UTF8.self))
            }
        }
        do {
            return try ChannelId(cid: try string(node))
        } catch {
            throw JSONError.invalid(error.message)
        }
    }

    /// The members of `object` not matched by `isKnown`, kept as bytes until read.
    func lazyMembers(_ object: Int, filter: MemberFilter) -> LazyMembers {
        LazyMembers(source: slice(object), filter: filter)
    }
}

/// Looks up an object key among a model's known keys by comparing bytes, without creating a
/// `String` for the key.
final class KeyTable<Key: RawRepresentable & CaseIterable & Sendable>: Sendable where Key.RawValue == String {
    /// One known key: its first eight bytes packed (zero-padded) for a single comparison, and
    /// where the rest of its bytes start in `tails`.
    private struct Entry: Sendable {
        let head: UInt64
        let length: Int
        let tail: Int
        let key: Key
    }

    /// Entries sorted by length; `firstOfLength[n]..<firstOfLength[n + 1]` are those of length n.
    private let entries: [Entry]
    private let firstOfLength: [Int]
    private let tails: [UInt8]
    /// The key names, for filtering custom fields.
    let names: Set<String>

    init() {
        let keys = Key.allCases.sorted { $0.rawValue.utf8.count < $1.rawValue.utf8.count }
        let longest = keys.last.map { $0.rawValue.utf8.count } ?? 0
        var entries: [Entry] = []
        var tails: [UInt8] = []
        var firstOfLength = [Int](repeating: 0, count: longest + 2)
        for key in keys {
            let bytes = Array(key.rawValue.utf8)
            entries.append(Entry(head: KeyTable.head(bytes), length: bytes.count, tail: tails.count, key: key))
            if bytes.count > 8 { tails.append(contentsOf: bytes[8...]) }
        }
        for length in 0..<firstOfLength.count {
            firstOfLength[length] = entries.firstIndex { $0.length >= length } ?? entries.count
        }
        self.entries = entries
        self.firstOfLength = firstOfLength
        self.tails = tails
        self.names = Set(Key.allCases.map(\.rawValue))
    }

    func match(_ reader: JSONReader, _ keyNode: Int) -> Key? {
        guard let bytes = reader.keyBytes(keyNode) else {
            return (try? reader.string(keyNode)).flatMap(Key.init(rawValue:))
        }
        let length = bytes.count
        guard length + 1 < firstOfLength.count else { return nil }
        let head = KeyTable.head(bytes, readableUpTo: reader.documentEnd)
        for position in firstOfLength[length]..<firstOfLength[length + 1] {
            let entry = entries[position]
            guard entry.head == head else { continue }
            if length <= 8 { return entry.key }
            let rest = length - 8
            let equal = tails.withUnsafeBufferPointer { tails in
                memcmp(tails.baseAddress! + entry.tail, bytes.baseAddress! + 8, rest) == 0
            }
            if equal { return entry.key }
        }
        return nil
    }

    /// The first eight bytes of a key in the document, little-endian, zero-padded: one load
    /// when eight bytes can be read there (a key is followed by at least `":x}`), packed byte
    /// by byte only near the document's end.
    @inline(__always)
    private static func head(_ bytes: UnsafeBufferPointer<UInt8>, readableUpTo end: UnsafePointer<UInt8>) -> UInt64 {
        let start = bytes.baseAddress!
        guard end - start >= 8 else { return head(bytes) }
        let loaded = UInt64(littleEndian: UnsafeRawPointer(start).loadUnaligned(as: UInt64.self))
        return bytes.count >= 8 ? loaded : loaded & ((1 &<< UInt64(bytes.count &* 8)) &- 1)
    }

    /// The first eight bytes, little-endian, zero-padded.
    @inline(__always)
    private static func head<C: Collection<UInt8>>(_ bytes: C) -> UInt64 {
        var head: UInt64 = 0
        var shift: UInt64 = 0
        for byte in bytes.prefix(8) {
            head |= UInt64(byte) << shift
            shift += 8
        }
        return head
    }
}
