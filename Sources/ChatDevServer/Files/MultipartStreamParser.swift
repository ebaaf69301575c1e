#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A streaming `multipart/form-data` parser: feed it the body as it arrives and it reports part
/// headers and body bytes without ever holding a whole part in memory (only a delimiter-sized
/// tail is kept between chunks).
struct MultipartStreamParser {
    /// What the parser found in the bytes fed so far.
    enum Event: Equatable {
        case partBegin(MultipartPartHeaders)
        case partBytes([UInt8])
        case partEnd
        case end
    }

    enum State {
        case preamble
        case afterDelimiter
        case headers
        case body
        case done
    }

    struct ParseError: Error, Equatable {
        let reason: String
    }

    private let delimiter: [UInt8]
    private var pending: [UInt8]
    private(set) var state = State.preamble
    private let maximumHeaderSize = 16 * 1024

    /// A parser for `boundary` (from the request's `Content-Type`).
    init(boundary: String) {
        delimiter = Array("\r\n--\(boundary)".utf8)
        // The body starts with "--boundary" without a line break; pretend there was one.
        pending = [0x0D, 0x0A]
    }

    /// The boundary of a `multipart/form-data; boundary=...` content type.
    static func boundary(fromContentType contentType: String) -> String? {
        let parts = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.first?.lowercased() == "multipart/form-data" else { return nil }
        for part in parts.dropFirst() where part.lowercased().hasPrefix("boundary=") {
            var value = String(part.dropFirst("boundary=".count))
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value.isEmpty || value.count > 200 ? nil : value
        }
        return nil
    }

    /// Feeds the next chunk of the body.
    mutating func feed(_ chunk: some Collection<UInt8>) throws(ParseError) -> [Event] {
        pending.append(contentsOf: chunk)
        var events: [Event] = []
        while try step(&events) {}
        return events
    }

    /// Checks that the body ended properly.
    func finish() throws(ParseError) {
        guard state == .done else {
            throw ParseError(reason: "the multipart body ended before its closing boundary")
        }
    }

    /// One step of the state machine; false when it needs more bytes.
    private mutating func step(_ events: inout [Event]) throws(ParseError) -> Bool {
        switch state {
        case .preamble:
            guard let index = find(delimiter, in: pending) else {
                // Keep only what could still be the start of a delimiter.
                if pending.count > delimiter.count { pending.removeFirst(pending.count - delimiter.count) }
                return false
            }
            pending.removeFirst(index + delimiter.count)
            state = .afterDelimiter
            return true
        case .afterDelimiter:
            guard pending.count >= 2 else { return false }
            if pending[0] == UInt8(ascii: "-"), pending[1] == UInt8(ascii: "-") {
                pending.removeAll()
                state = .done
                events.append(.end)
                return false
            }
            // Transport padding (spaces, tabs) may follow the boundary before its line break.
            var index = 0
            while index < pending.count, pending[index] == 0x20 || pending[index] == 0x09 { index += 1 }
            guard index + 1 < pending.count else { return false }
            guard pending[index] == 0x0D, pending[index + 1] == 0x0A else {
                throw ParseError(reason: "a boundary must be followed by a line break or '--'")
            }
            pending.removeFirst(index + 2)
            state = .headers
            return true
        case .headers:
            guard let end = find([0x0D, 0x0A, 0x0D, 0x0A], in: pending) else {
                if pending.count > maximumHeaderSize { throw ParseError(reason: "part headers are larger than 16 KiB") }
                // An empty header block is just "\r\n".
                if pending.starts(with: [0x0D, 0x0A]) {
                    pending.removeFirst(2)
                    events.append(.partBegin(MultipartPartHeaders(lines: [])))
                    state = .body
                    return true
                }
                return false
            }
            let text = String(decoding: pending[..<end], as: UTF8.self)
            pending.removeFirst(end + 4)
            events.append(.partBegin(MultipartPartHeaders(lines: text.components(separatedBy: "\r\n"))))
            state = .body
            return true
        case .body:
            if let index = find(delimiter, in: pending) {
                if index > 0 { events.append(.partBytes(Array(pending[..<index]))) }
                pending.removeFirst(index + delimiter.count)
                events.append(.partEnd)
                state = .afterDelimiter
                return true
            }
            // Everything but a possible delimiter prefix at the end is body.
            let keep = delimiter.count - 1
            if pending.count > keep {
                events.append(.partBytes(Array(pending[..<(pending.count - keep)])))
                pending.removeFirst(pending.count - keep)
            }
            return false
        case .done:
            pending.removeAll()
            return false
        }
    }

    /// The first index of `needle` in `haystack`, using `memchr` to skip to candidate bytes.
    private func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count, let first = needle.first else { return nil }
        return haystack.withUnsafeBufferPointer { hay -> Int? in
            needle.withUnsafeBufferPointer { pattern -> Int? in
                guard let hayBase = hay.baseAddress, let patternBase = pattern.baseAddress else { return nil }
                var start = 0
                let last = hay.count - pattern.count
                while start <= last {
                    guard let found = memchr(hayBase + start, Int32(first), last - start + 1) else { return nil }
                    let index = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - hayBase
                    if memcmp(hayBase + index, patternBase, pattern.count) == 0 { return index }
                    start = index + 1
                }
                return nil
            }
        }
    }
}

/// The headers of one part: its form field name, file name and content type.
struct MultipartPartHeaders: Equatable {
    var name: String?
    var filename: String?
    var contentType: String?

    init(lines: [String]) {
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let field = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch field {
            case "content-disposition":
                let parameters = MultipartPartHeaders.parameters(of: value)
                name = parameters["name"]
                filename = parameters["filename*"].flatMap(MultipartPartHeaders.decodeExtended) ?? parameters["filename"]
            case "content-type":
                contentType = value.isEmpty ? nil : value
            default:
                continue
            }
        }
    }

    /// `form-data; name="file"; filename="a \"b\".png"` → ["name": "file", "filename": "a \"b\".png"].
    static func parameters(of value: String) -> [String: String] {
        var result: [String: String] = [:]
        var index = value.startIndex
        func skipSpaces() { while index < value.endIndex, value[index] == " " || value[index] == "\t" { index = value.index(after: index) } }
        // Skip the disposition type.
        while index < value.endIndex, value[index] != ";" { index = value.index(after: index) }
        while index < value.endIndex {
            index = value.index(after: index)  // ';'
            skipSpaces()
            var key = ""
            while index < value.endIndex, value[index] != "=", value[index] != ";" {
                key.append(value[index])
                index = value.index(after: index)
            }
            var parameter = ""
            if index < value.endIndex, value[index] == "=" {
                index = value.index(after: index)
                if index < value.endIndex, value[index] == "\"" {
                    index = value.index(after: index)
                    while index < value.endIndex, value[index] != "\"" {
                        if value[index] == "\\", value.index(after: index) < value.endIndex { index = value.index(after: index) }
                        parameter.append(value[index])
                        index = value.index(after: index)
                    }
                    if index < value.endIndex { index = value.index(after: index) }
                    while index < value.endIndex, value[index] != ";" { index = value.index(after: index) }
                } else {
                    while index < value.endIndex, value[index] != ";" {
                        parameter.append(value[index])
                        index = value.index(after: index)
                    }
                }
            }
            let trimmedKey = key.trimmingCharacters(in: .whitespaces).lowercased()
            if !trimmedKey.isEmpty { result[trimmedKey] = parameter.trimmingCharacters(in: .whitespaces) }
        }
        return result
    }

    /// RFC 5987 `UTF-8''name%20with%20spaces.png`.
    static func decodeExtended(_ value: String) -> String? {
        guard let quote = value.range(of: "''") else { return nil }
        return String(value[quote.upperBound...]).removingPercentEncoding
    }
}

import Foundation
