import ChatBotKitTesting
import ChatLocking
import ChatModels
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// A loopback OTLP/HTTP collector for the tests: it keeps every export it is sent and answers
/// with the scripted answers first, then 200 with an empty JSON object.
final class TestCollector: Sendable {
    /// One request as it arrived.
    struct Export: Sendable {
        var path: String
        var headers: [String: String]
        var body: RawJSON
    }

    /// An answer to give.
    struct Answer: Sendable {
        var status: Int
        var body: String = "{}"
        var headers: [String: String] = [:]
    }

    let baseURL: URL
    private let exports: Locked<[Export]>
    private let answers: Locked<[Answer]>

    private init(baseURL: URL, exports: Locked<[Export]>, answers: Locked<[Answer]>) {
        self.baseURL = baseURL
        self.exports = exports
        self.answers = answers
    }

    /// Every export received, in order.
    var received: [Export] { exports.withLock { $0 } }

    /// Every span of every export, each with its resource's `service.name`.
    var spans: [ExportedSpan] {
        received.flatMap { ExportedSpan.all(in: $0.body) }
    }

    /// Answers the next requests with `answers`, in order.
    func script(_ answers: [Answer]) {
        self.answers.withLock { $0 += answers }
    }

    /// Runs a collector for the duration of `body`.
    static func withCollector<T: Sendable>(_ body: @Sendable (TestCollector) async throws -> T) async throws -> T {
        let exports = Locked<[Export]>([])
        let answers = Locked<[Answer]>([])
        let logger = Logger(label: "chatbotkit.test-collector")
        let port = Locked<Int?>(nil)
        let app = Application(
            responder: CollectorResponder(exports: exports, answers: answers),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in port.withLock { $0 = channel.localAddress?.port } }, logger: logger)
        return try await withRunningServices([app], logger: logger) {
            while port.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(10)) }
            return try await body(
                TestCollector(baseURL: URL(string: "http://127.0.0.1:\(port.withLock { $0 }!)")!, exports: exports, answers: answers))
        }
    }

    private struct CollectorResponder: HTTPResponder {
        typealias Context = BasicRequestContext
        let exports: Locked<[Export]>
        let answers: Locked<[Answer]>

        func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
            let buffer = try await request.body.collect(upTo: 16 << 20)
            let body = (try? JSONParser().parse(Data(buffer.readableBytesView))) ?? .null
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            exports.withLock { $0.append(Export(path: request.uri.path, headers: headers, body: body)) }
            let answer = answers.withLock { $0.isEmpty ? Answer(status: 200) : $0.removeFirst() }
            var fields = HTTPFields()
            fields[.contentType] = "application/json"
            for (name, value) in answer.headers { fields[HTTPField.Name(name)!] = value }
            return Response(
                status: HTTPResponse.Status(code: answer.status), headers: fields,
                body: ResponseBody(byteBuffer: ByteBuffer(string: answer.body)))
        }
    }
}

/// One span as the collector got it, read from the OTLP JSON.
struct ExportedSpan: Sendable {
    var service: String?
    var json: JSONObject

    var name: String? { string("name") }
    var traceID: String? { string("traceId") }
    var spanID: String? { string("spanId") }
    var parentSpanID: String? { string("parentSpanId") }
    var kind: Int? { if case .number(let number)? = json["kind"] { number.int } else { nil } }
    var statusCode: Int? {
        guard case .object(let status)? = json["status"], case .number(let code)? = status["code"] else { return nil }
        return code.int
    }

    func string(_ key: String) -> String? {
        if case .string(let text)? = json[key] { text } else { nil }
    }

    /// The value of the attribute `key`, as its OTLP `AnyValue` object.
    func attribute(_ key: String) -> JSONObject? {
        guard case .array(let attributes)? = json["attributes"] else { return nil }
        for case .object(let pair) in attributes where pair["key"] == .string(key) {
            if case .object(let value)? = pair["value"] { return value }
        }
        return nil
    }

    /// A string attribute's value.
    func stringAttribute(_ key: String) -> String? {
        if case .string(let text)? = attribute(key)?["stringValue"] { text } else { nil }
    }

    static func all(in body: RawJSON) -> [ExportedSpan] {
        guard case .object(let request) = body, case .array(let resourceSpans)? = request["resourceSpans"] else { return [] }
        var spans: [ExportedSpan] = []
        for case .object(let resourceSpan) in resourceSpans {
            var service: String?
            if case .object(let resource)? = resourceSpan["resource"], case .array(let attributes)? = resource["attributes"] {
                for case .object(let pair) in attributes where pair["key"] == .string("service.name") {
                    if case .object(let value)? = pair["value"], case .string(let name)? = value["stringValue"] { service = name }
                }
            }
            guard case .array(let scopeSpans)? = resourceSpan["scopeSpans"] else { continue }
            for case .object(let scope) in scopeSpans {
                guard case .array(let list)? = scope["spans"] else { continue }
                for case .object(let span) in list { spans.append(ExportedSpan(service: service, json: span)) }
            }
        }
        return spans
    }
}
