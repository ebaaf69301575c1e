import Foundation

/// Server-sent events read from a byte stream, by the rules of the HTML standard that
/// OpenAI-compatible servers follow: fields per line (`data:`, `event:`, `id:`), `data` lines
/// joined with newlines, an event ended by a blank line, comment lines (`:`) ignored, CR, LF
/// and CRLF all ending lines.
///
/// Our own, because mattt/EventSource 1.1.1 does not build on Linux (its client calls
/// `URLSession.bytes`, which swift-corelibs-foundation does not have) and its parser is an actor
/// fed one byte per call. Lines are kept as bytes until they end, so a UTF-8 character split
/// across network chunks is joined before it is decoded.
struct ServerSentEventParser: Sendable {
    /// One event.
    struct Event: Sendable, Equatable {
        /// `event:`, if given.
        var name: String?
        /// The `data:` lines, joined with newlines.
        var data: String
        /// The line of the stream its first `data:` line was on (from 1), for errors that name it.
        var line: Int = 0
    }

    /// The longest line accepted; a longer one is a malformed stream, not a reason to grow
    /// without bound.
    let maximumLineLength: Int
    private var line: [UInt8] = []
    private var lastWasCR = false
    private var data: [UInt8] = []
    private var hasData = false
    private var dataLine = 0
    private var name: String?
    /// Lines read so far (for errors).
    private(set) var lineNumber = 0

    init(maximumLineLength: Int = 1 << 20) {
        self.maximumLineLength = maximumLineLength
    }

    /// The events the bytes complete.
    mutating func feed<Bytes: Sequence>(_ bytes: Bytes) throws(ModelError) -> [Event] where Bytes.Element == UInt8 {
        var events: [Event] = []
        for byte in bytes {
            switch byte {
            case 0x0A where lastWasCR:
                lastWasCR = false
            case 0x0A, 0x0D:
                lastWasCR = byte == 0x0D
                if let event = endLine() { events.append(event) }
            default:
                lastWasCR = false
                guard line.count < maximumLineLength else {
                    throw ModelError(
                        code: .malformedStream,
                        message: "line \(lineNumber + 1) of the event stream is longer than \(maximumLineLength) bytes")
                }
                line.append(byte)
            }
        }
        return events
    }

    private mutating func endLine() -> Event? {
        lineNumber += 1
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty {
            defer {
                data.removeAll(keepingCapacity: true)
                hasData = false
                name = nil
            }
            guard hasData else { return nil }
            return Event(name: name, data: String(decoding: data, as: UTF8.self), line: dataLine)
        }
        if line.first == UInt8(ascii: ":") { return nil }
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
        let field = String(decoding: line[..<colon], as: UTF8.self)
        var value = colon < line.endIndex ? line[(colon + 1)...] : []
        if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        switch field {
        case "data":
            if hasData { data.append(0x0A) } else { dataLine = lineNumber }
            data.append(contentsOf: value)
            hasData = true
        case "event":
            name = String(decoding: value, as: UTF8.self)
        default:
            break
        }
        return nil
    }
}
