import Foundation
import Tracing

/// Writes spans as an OTLP/HTTP JSON `ExportTraceServiceRequest`, in the protocol's JSON
/// mapping: ids as lowercase hex, 64-bit integers as strings, enums as their numbers. It
/// writes bytes straight into one buffer: building a JSON tree first cost a traced bot a
/// quarter of its events/s (see the tracing benchmark).
struct OTLPTraceEncoder: Sendable {
    /// The resource's attributes, `service.name` first.
    let resource: [(String, String)]
    /// The instrumentation scope the spans are reported under.
    let scopeName: String

    func encode(_ spans: [FinishedSpan]) -> Data {
        var out = JSONBytes()
        out.reserve(512 + spans.count * 640)
        out.raw(#"{"resourceSpans":[{"resource":{"attributes":["#)
        for (index, (key, value)) in resource.enumerated() {
            if index > 0 { out.raw(",") }
            out.raw(#"{"key":"#)
            out.string(key)
            out.raw(#","value":{"stringValue":"#)
            out.string(value)
            out.raw("}}")
        }
        out.raw(#"]},"scopeSpans":[{"scope":{"name":"#)
        out.string(scopeName)
        out.raw(#"},"spans":["#)
        for (index, span) in spans.enumerated() {
            if index > 0 { out.raw(",") }
            Self.write(span, to: &out)
        }
        out.raw("]}]}]}")
        return Data(out.bytes)
    }

    private static func write(_ span: FinishedSpan, to out: inout JSONBytes) {
        out.raw(#"{"traceId":""#)
        out.raw(span.context.traceID.description)
        out.raw(#"","spanId":""#)
        out.raw(span.context.spanID.description)
        out.raw(#"""#)
        if let parent = span.parentSpanID {
            out.raw(#","parentSpanId":""#)
            out.raw(parent.description)
            out.raw(#"""#)
        }
        if let state = span.context.traceState {
            out.raw(#","traceState":"#)
            out.string(state)
        }
        out.raw(#","name":"#)
        out.string(span.name)
        out.raw(#","kind":"#)
        out.raw(String(kindNumber(span.kind)))
        out.raw(#","startTimeUnixNano":""#)
        out.raw(String(span.startNanoseconds))
        out.raw(#"","endTimeUnixNano":""#)
        out.raw(String(span.endNanoseconds))
        // Bits 0-7: the W3C flags; bit 8: whether the parent's remoteness is known; bit 9: it is.
        out.raw(#"","flags":"#)
        out.raw(String((span.context.isSampled ? 1 : 0) | 0x100 | (span.parentIsRemote ? 0x200 : 0)))
        if !span.attributes.isEmpty {
            out.raw(#","attributes":"#)
            attributes(span.attributes, to: &out)
        }
        if !span.events.isEmpty {
            out.raw(#","events":["#)
            for (index, event) in span.events.enumerated() {
                if index > 0 { out.raw(",") }
                out.raw(#"{"timeUnixNano":""#)
                out.raw(String(event.nanosecondsSinceEpoch))
                out.raw(#"","name":"#)
                out.string(event.name)
                if !event.attributes.isEmpty {
                    out.raw(#","attributes":"#)
                    attributes(event.attributes, to: &out)
                }
                out.raw("}")
            }
            out.raw("]")
        }
        if !span.links.isEmpty {
            out.raw(#","links":["#)
            for (index, link) in span.links.enumerated() {
                if index > 0 { out.raw(",") }
                out.raw(#"{"traceId":""#)
                out.raw(link.context.traceID.description)
                out.raw(#"","spanId":""#)
                out.raw(link.context.spanID.description)
                out.raw(#"""#)
                if let state = link.context.traceState {
                    out.raw(#","traceState":"#)
                    out.string(state)
                }
                if !link.attributes.isEmpty {
                    out.raw(#","attributes":"#)
                    attributes(link.attributes, to: &out)
                }
                out.raw("}")
            }
            out.raw("]")
        }
        if let status = span.status {
            out.raw(#","status":{"code":"#)
            out.raw(status.code == .ok ? "1" : "2")
            if let message = status.message, !message.isEmpty {
                out.raw(#","message":"#)
                out.string(message)
            }
            out.raw("}")
        }
        out.raw("}")
    }

    /// OpenTelemetry's `SpanKind` numbers.
    private static func kindNumber(_ kind: SpanKind) -> Int {
        switch kind {
        case .server: 2
        case .client: 3
        case .producer: 4
        case .consumer: 5
        default: 1
        }
    }

    private static func attributes(_ attributes: SpanAttributes, to out: inout JSONBytes) {
        out.raw("[")
        var first = true
        attributes.forEach { key, value in
            if !first { out.raw(",") }
            first = false
            out.raw(#"{"key":"#)
            out.string(key)
            out.raw(#","value":"#)
            anyValue(value, to: &out)
            out.raw("}")
        }
        out.raw("]")
    }

    private static func anyValue(_ attribute: SpanAttribute, to out: inout JSONBytes) {
        switch attribute {
        case .int32(let value): integer(Int64(value), to: &out)
        case .int64(let value): integer(value, to: &out)
        case .double(let value): double(value, to: &out)
        case .bool(let value): out.raw(value ? #"{"boolValue":true}"# : #"{"boolValue":false}"#)
        case .string(let value): string(value, to: &out)
        case .int32Array(let values): array(values, to: &out) { integer(Int64($0), to: &$1) }
        case .int64Array(let values): array(values, to: &out) { integer($0, to: &$1) }
        case .doubleArray(let values): array(values, to: &out) { double($0, to: &$1) }
        case .boolArray(let values): array(values, to: &out) { $1.raw($0 ? #"{"boolValue":true}"# : #"{"boolValue":false}"#) }
        case .stringArray(let values): array(values, to: &out) { string($0, to: &$1) }
        case .stringConvertible(let value): string(value.description, to: &out)
        case .stringConvertibleArray(let values): array(values, to: &out) { string($0.description, to: &$1) }
        default: string("\(attribute)", to: &out)
        }
    }

    private static func string(_ value: String, to out: inout JSONBytes) {
        out.raw(#"{"stringValue":"#)
        out.string(value)
        out.raw("}")
    }

    private static func integer(_ value: Int64, to out: inout JSONBytes) {
        out.raw(#"{"intValue":""#)
        out.raw(String(value))
        out.raw(#""}"#)
    }

    /// JSON has no NaN or infinities; the protocol's mapping writes them as strings.
    private static func double(_ value: Double, to out: inout JSONBytes) {
        out.raw(#"{"doubleValue":"#)
        if value.isNaN {
            out.raw(#""NaN""#)
        } else if value.isInfinite {
            out.raw(value > 0 ? #""Infinity""# : #""-Infinity""#)
        } else {
            out.raw("\(value)")
        }
        out.raw("}")
    }

    private static func array<Element>(_ values: [Element], to out: inout JSONBytes, _ write: (Element, inout JSONBytes) -> Void) {
        out.raw(#"{"arrayValue":{"values":["#)
        for (index, value) in values.enumerated() {
            if index > 0 { out.raw(",") }
            write(value, &out)
        }
        out.raw("]}}")
    }
}

/// A JSON document being written as UTF-8 bytes.
struct JSONBytes {
    private(set) var bytes: [UInt8] = []

    mutating func reserve(_ count: Int) { bytes.reserveCapacity(count) }

    /// Text that needs no escaping (punctuation, numbers, hex ids).
    mutating func raw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// A JSON string: quoted, with quotes, backslashes and control characters escaped.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
