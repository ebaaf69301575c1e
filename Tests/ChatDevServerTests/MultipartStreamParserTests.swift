@testable import ChatDevServer
import Foundation
import Testing

@Suite("Streaming multipart parser")
struct MultipartStreamParserTests {
    static let body = Array(
        ("--XyZ\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\n{\"id\": \"bot-1\"}\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a \\\"quoted\\\".png\"\r\nContent-Type: image/png\r\n\r\n"
            + "line one\r\n--XyNot the boundary\r\nend"
            + "\r\n--XyZ--\r\n").utf8)

    /// Collects the parts found when the body arrives in chunks of `size` bytes.
    static func parse(_ body: [UInt8], chunkSize: Int) throws -> [(MultipartPartHeaders, [UInt8])] {
        var parser = MultipartStreamParser(boundary: "XyZ")
        var parts: [(MultipartPartHeaders, [UInt8])] = []
        var offset = 0
        while offset < body.count {
            let chunk = body[offset..<min(body.count, offset + chunkSize)]
            for event in try parser.feed(chunk) {
                switch event {
                case .partBegin(let headers): parts.append((headers, []))
                case .partBytes(let bytes): parts[parts.count - 1].1 += bytes
                case .partEnd, .end: break
                }
            }
            offset += chunkSize
        }
        try parser.finish()
        return parts
    }

    @Test("parts come out the same however the body is split into chunks")
    func everyChunkSize() throws {
        for size in [1, 2, 3, 5, 7, 11, 16, 64, 1000] {
            let parts = try Self.parse(Self.body, chunkSize: size)
            #expect(parts.count == 2, "chunk size \(size)")
            #expect(parts[0].0.name == "user")
            #expect(String(decoding: parts[0].1, as: UTF8.self) == #"{"id": "bot-1"}"#)
            #expect(parts[1].0.name == "file")
            #expect(parts[1].0.filename == #"a "quoted".png"#)
            #expect(parts[1].0.contentType == "image/png")
            #expect(String(decoding: parts[1].1, as: UTF8.self) == "line one\r\n--XyNot the boundary\r\nend", "chunk size \(size)")
        }
    }

    @Test("a body without its closing boundary is an error")
    func truncated() {
        let truncated = Array(Self.body.dropLast(12))
        #expect(throws: MultipartStreamParser.ParseError.self) { try Self.parse(truncated, chunkSize: 8) }
    }

    @Test("oversized part headers are refused")
    func hugeHeaders() {
        let body = Array(("--XyZ\r\nX-Junk: " + String(repeating: "a", count: 20_000)).utf8)
        #expect(throws: MultipartStreamParser.ParseError.self) { try Self.parse(body, chunkSize: 4096) }
    }

    @Test("boundaries come from the content type, quoted or not")
    func boundaries() {
        #expect(MultipartStreamParser.boundary(fromContentType: "multipart/form-data; boundary=abc") == "abc")
        #expect(MultipartStreamParser.boundary(fromContentType: "multipart/form-data; boundary=\"a b\"") == "a b")
        #expect(MultipartStreamParser.boundary(fromContentType: "application/json") == nil)
        #expect(MultipartStreamParser.boundary(fromContentType: "multipart/form-data") == nil)
    }

    @Test("RFC 5987 file names are decoded")
    func extendedFilename() {
        let headers = MultipartPartHeaders(lines: [#"Content-Disposition: form-data; name="file"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf"#])
        #expect(headers.filename == "résumé.pdf")
    }
}
