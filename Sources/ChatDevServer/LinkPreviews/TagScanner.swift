import Foundation

/// Walks the tags of an HTML document: names lower-cased, attributes read in any quoting,
/// comments, scripts and styles skipped.
struct TagScanner {
    struct Tag {
        var name: String
        var attributes: [String: String]
    }

    private let bytes: [UInt8]
    private var position = 0

    init(_ html: String) { bytes = Array(html.utf8) }

    /// The next opening tag, or nil at the end.
    mutating func nextTag() -> Tag? {
        while let open = find(UInt8(ascii: "<"), from: position) {
            position = open + 1
            if starts(with: "!--") {
                position = range(of: "-->", from: position)?.upperBound ?? bytes.count
                continue
            }
            let name = readName()
            guard !name.isEmpty else { continue }
            let attributes = readAttributes()
            if name == "script" || name == "style" {
                position = range(of: "</\(name)", from: position)?.lowerBound ?? bytes.count
            }
            return Tag(name: name, attributes: attributes)
        }
        position = bytes.count
        return nil
    }

    /// The raw text from here up to `end` (case-insensitive), where the scan goes on.
    mutating func text(until end: String) -> String {
        let stop = range(of: end, from: position)?.lowerBound ?? bytes.count
        defer { position = stop }
        return String(decoding: bytes[position..<stop], as: UTF8.self)
    }

    private mutating func readName() -> String {
        let start = position
        while position < bytes.count, Self.isNameByte(bytes[position]) { position += 1 }
        return String(decoding: bytes[start..<position], as: UTF8.self).lowercased()
    }

    private mutating func readAttributes() -> [String: String] {
        var attributes: [String: String] = [:]
        while position < bytes.count {
            skipSpace()
            guard position < bytes.count else { break }
            if bytes[position] == UInt8(ascii: ">") {
                position += 1
                break
            }
            if bytes[position] == UInt8(ascii: "/") {
                position += 1
                continue
            }
            let name = readName()
            guard !name.isEmpty else {
                position += 1  // a stray byte such as a quote: skip it rather than stall
                continue
            }
            skipSpace()
            var value = ""
            if position < bytes.count, bytes[position] == UInt8(ascii: "=") {
                position += 1
                skipSpace()
                value = readValue()
            }
            if attributes[name] == nil { attributes[name] = value }
        }
        return attributes
    }

    private mutating func readValue() -> String {
        guard position < bytes.count else { return "" }
        let quote = bytes[position]
        if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
            let start = position + 1
            let end = find(quote, from: start) ?? bytes.count
            position = min(end + 1, bytes.count)
            return String(decoding: bytes[start..<end], as: UTF8.self)
        }
        let start = position
        while position < bytes.count, !Self.isSpace(bytes[position]), bytes[position] != UInt8(ascii: ">") { position += 1 }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func skipSpace() {
        while position < bytes.count, Self.isSpace(bytes[position]) { position += 1 }
    }

    private func find(_ byte: UInt8, from start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        return bytes[start...].firstIndex(of: byte)
    }

    private func starts(with text: String) -> Bool {
        let pattern = Array(text.utf8)
        return bytes.count - position >= pattern.count && Array(bytes[position..<(position + pattern.count)]) == pattern
    }

    /// Where `text` next occurs from `start`, ignoring ASCII case.
    private func range(of text: String, from start: Int) -> Range<Int>? {
        let pattern = Array(text.lowercased().utf8)
        guard !pattern.isEmpty, bytes.count >= pattern.count else { return nil }
        var index = start
        while index + pattern.count <= bytes.count {
            if Self.lower(bytes[index]) == pattern[0],
                (1..<pattern.count).allSatisfy({ Self.lower(bytes[index + $0]) == pattern[$0] })
            {
                return index..<(index + pattern.count)
            }
            index += 1
        }
        return nil
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        !isSpace(byte) && byte != UInt8(ascii: ">") && byte != UInt8(ascii: "/") && byte != UInt8(ascii: "=")
            && byte != UInt8(ascii: "<") && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "'")
    }
}
