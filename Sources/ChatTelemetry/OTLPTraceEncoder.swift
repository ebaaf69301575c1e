import ChatModels
import Foundation
import Tracing

/// Writes spans as an OTLP/HTTP JSON `ExportTraceServiceRequest`, in the protocol's JSON
/// mapping: ids as lowercase hex, 64-bit integers as strings, enums as their numbers.
struct OTLPTraceEncoder: Sendable {
    /// The resource's attributes, `service.name` first.
    let resource: [(String, String)]
    /// The instrumentation scope the spans are reported under.
    let scopeName: String

    func encode(_ spans: [FinishedSpan]) -> Data {
        let resourceObject: JSONObject = ["attributes": .array(resource.map { Self.keyValue($0.0, .object(["stringValue": .string($0.1)])) })]
        let scope: JSONObject = ["name": .string(scopeName)]
        let scopeSpans: JSONObject = ["scope": .object(scope), "spans": .array(spans.map { .object(Self.span($0)) })]
        let resourceSpans: JSONObject = ["resource": .object(resourceObject), "scopeSpans": .array([.object(scopeSpans)])]
        return JSONWriter.data(.object(["resourceSpans": .array([.object(resourceSpans)])]))
    }

    private static func span(_ span: FinishedSpan) -> JSONObject {
        var object: JSONObject = [
            "traceId": .string(span.context.traceID.description),
            "spanId": .string(span.context.spanID.description),
        ]
        if let parent = span.parentSpanID { object["parentSpanId"] = .string(parent.description) }
        if let state = span.context.traceState { object["traceState"] = .string(state) }
        object["name"] = .string(span.name)
        object["kind"] = .number(JSONNumber(kindNumber(span.kind)))
        object["startTimeUnixNano"] = .string(String(span.startNanoseconds))
        object["endTimeUnixNano"] = .string(String(span.endNanoseconds))
        // Bits 0-7: the W3C flags; bit 8: whether the parent's remoteness is known; bit 9: it is.
        let flags = (span.context.isSampled ? 1 : 0) | 0x100 | (span.parentIsRemote ? 0x200 : 0)
        object["flags"] = .number(JSONNumber(flags))
        if !span.attributes.isEmpty { object["attributes"] = attributes(span.attributes) }
        if !span.events.isEmpty {
            object["events"] = .array(
                span.events.map { event in
                    var eventObject: JSONObject = ["timeUnixNano": .string(String(event.nanosecondsSinceEpoch)), "name": .string(event.name)]
                    if !event.attributes.isEmpty { eventObject["attributes"] = attributes(event.attributes) }
                    return .object(eventObject)
                })
        }
        if !span.links.isEmpty {
            object["links"] = .array(
                span.links.map { link in
                    var linkObject: JSONObject = [
                        "traceId": .string(link.context.traceID.description), "spanId": .string(link.context.spanID.description),
                    ]
                    if let state = link.context.traceState { linkObject["traceState"] = .string(state) }
                    if !link.attributes.isEmpty { linkObject["attributes"] = attributes(link.attributes) }
                    return .object(linkObject)
                })
        }
        if let status = span.status {
            var statusObject: JSONObject = ["code": .number(JSONNumber(status.code == .ok ? 1 : 2))]
            if let message = status.message, !message.isEmpty { statusObject["message"] = .string(message) }
            object["status"] = .object(statusObject)
        }
        return object
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

    private static func attributes(_ attributes: SpanAttributes) -> RawJSON {
        var pairs: [(String, SpanAttribute)] = []
        attributes.forEach { pairs.append(($0, $1)) }
        return .array(pairs.sorted { $0.0 < $1.0 }.map { keyValue($0.0, anyValue($0.1)) })
    }

    private static func keyValue(_ key: String, _ value: RawJSON) -> RawJSON {
        .object(["key": .string(key), "value": value])
    }

    private static func anyValue(_ attribute: SpanAttribute) -> RawJSON {
        switch attribute {
        case .int32(let value): integer(Int64(value))
        case .int64(let value): integer(value)
        case .double(let value): double(value)
        case .bool(let value): .object(["boolValue": .bool(value)])
        case .string(let value): .object(["stringValue": .string(value)])
        case .int32Array(let values): array(values.map { integer(Int64($0)) })
        case .int64Array(let values): array(values.map(integer))
        case .doubleArray(let values): array(values.map(double))
        case .boolArray(let values): array(values.map { .object(["boolValue": .bool($0)]) })
        case .stringArray(let values): array(values.map { .object(["stringValue": .string($0)]) })
        case .stringConvertible(let value): .object(["stringValue": .string(value.description)])
        case .stringConvertibleArray(let values): array(values.map { .object(["stringValue": .string($0.description)]) })
        default: .object(["stringValue": .string("\(attribute)")])
        }
    }

    private static func integer(_ value: Int64) -> RawJSON {
        .object(["intValue": .string(String(value))])
    }

    /// JSON has no NaN or infinities; the protocol's mapping writes them as strings.
    private static func double(_ value: Double) -> RawJSON {
        if value.isNaN { return .object(["doubleValue": .string("NaN")]) }
        if value.isInfinite { return .object(["doubleValue": .string(value > 0 ? "Infinity" : "-Infinity")]) }
        return .object(["doubleValue": .number(JSONNumber(value))])
    }

    private static func array(_ values: [RawJSON]) -> RawJSON {
        .object(["arrayValue": .object(["values": .array(values)])])
    }
}
