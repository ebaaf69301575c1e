import ChatLocking
import ChatTestSupport
@testable import ChatTransport
import Foundation
import Testing

@Suite("HTTP on libcurl")
struct CurlHTTPTransportTests {
    @Test("JSON requests round-trip with headers and status")
    func json() async throws {
        try await withDevServer { _, baseURL in
            let transport = CurlHTTPTransport()
            defer { transport.shutdown() }
            let response = try await transport.send(
                TransportRequest(method: "GET", url: URL(string: "\(baseURL)/app?api_key=dev-key")!, headers: authHeaders(serverDevToken)))
            #expect(response.status == 200)
            #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
            #expect(response.header("x-ratelimit-limit") == "10000")
            #expect(String(decoding: response.body, as: UTF8.self).contains("file_upload_config"))
            let refused = try await transport.send(TransportRequest(method: "GET", url: URL(string: "\(baseURL)/app?api_key=dev-key")!))
            #expect(refused.status == 401, "HTTP errors are responses, not transport errors")
        }
    }

    @Test("uploads stream from disk with monotonic progress ending at 100%, downloads stream to disk byte-identical")
    func uploadAndDownload() async throws {
        try await withDevServer { _, baseURL in
            let transport = CurlHTTPTransport()
            defer { transport.shutdown() }
            let folder = try ScratchFolder("transport")
            let headers = authHeaders(serverDevToken)
            _ = try await transport.send(
                TransportRequest(
                    method: "POST", url: URL(string: "\(baseURL)/channels/messaging/up/query?api_key=dev-key")!, headers: headers,
                    body: .data(Data(#"{"data":{"created_by_id":"u1"}}"#.utf8), contentType: "application/json")))
            let source = try folder.file("payload.bin", bytes: 3 * 1024 * 1024 + 17)
            let reports = Recorder<TransferProgress>()
            let response = try await transport.send(
                TransportRequest(
                    method: "POST", url: URL(string: "\(baseURL)/channels/messaging/up/file?api_key=dev-key")!, headers: headers,
                    body: .multipart([
                        MultipartPart(name: "user", content: .data(Data(#"{"id":"u1"}"#.utf8))),
                        MultipartPart(name: "file", filename: "payload.bin", contentType: "application/octet-stream", content: .file(source)),
                    ]),
                    progress: { progress in reports.record(progress) }))
            #expect(response.status == 201, "\(String(decoding: response.body, as: UTF8.self))")
            let uploads = reports.all.map(\.uploaded)
            #expect(uploads == uploads.sorted(), "upload progress never goes backwards")
            let last = try #require(reports.all.last)
            #expect(last.uploaded == last.uploadTotal && last.uploadTotal > 3 * 1024 * 1024)

            let link = try #require(String(decoding: response.body, as: UTF8.self).split(separator: "\"").first { $0.hasPrefix("http") })
            let target = folder.path("download.bin")
            let downloads = Recorder<TransferProgress>()
            let download = try await transport.send(
                TransportRequest(
                    method: "GET", url: URL(string: String(link))!, destination: .file(target),
                    progress: { progress in downloads.record(progress) }))
            #expect(download.status == 200 && download.file == target && download.body.isEmpty)
            #expect(try Data(contentsOf: target) == Data(contentsOf: source))
            let final = try #require(downloads.all.last)
            #expect(final.downloaded == final.downloadTotal && final.downloaded == 3 * 1024 * 1024 + 17)

            // Streamed through a transport made for the one call (as a model client made per
            // request does), released before the body is read: the body keeps it alive.
            let streamed = try await CurlHTTPTransport().stream(TransportRequest(method: "GET", url: URL(string: String(link))!), bufferCapacity: 64 << 10)
            var body = Data()
            for try await chunk in streamed.body { body.append(chunk) }
            #expect(body == (try Data(contentsOf: source)))
        }
    }

    @Test("a response over the memory limit is refused, not buffered")
    func memoryLimit() async throws {
        try await withDevServer { _, baseURL in
            let transport = CurlHTTPTransport()
            defer { transport.shutdown() }
            await #expect {
                _ = try await transport.send(
                    TransportRequest(
                        method: "GET", url: URL(string: "\(baseURL)/app?api_key=dev-key")!, headers: authHeaders(serverDevToken),
                        destination: .memory(limit: 100)))
            } throws: { ($0 as? TransportError)?.code == .tooLarge }
        }
    }

    @Test("nothing listening is a clear connection error")
    func connectionRefused() async throws {
        let transport = CurlHTTPTransport()
        defer { transport.shutdown() }
        await #expect {
            _ = try await transport.send(TransportRequest(method: "GET", url: URL(string: "http://127.0.0.1:9/nothing")!))
        } throws: { error in
            guard let error = error as? TransportError else { return false }
            return error.code == .connectionFailed && error.message.contains("cannot connect to 127.0.0.1")
        }
    }

    @Test("a missing file part is refused before anything is sent")
    func missingFile() async throws {
        let transport = CurlHTTPTransport()
        defer { transport.shutdown() }
        await #expect {
            _ = try await transport.send(
                TransportRequest(
                    method: "POST", url: URL(string: "http://127.0.0.1:9/upload")!,
                    body: .multipart([MultipartPart(name: "file", content: .file(URL(fileURLWithPath: "/no/such/file.bin")))])))
        } throws: { ($0 as? TransportError)?.code == .fileUnreadable }
    }

    @Test("cancelling the task aborts a transfer in flight")
    func cancellation() async throws {
        try await withDevServer { _, baseURL in
            let transport = CurlHTTPTransport()
            defer { transport.shutdown() }
            let folder = try ScratchFolder("transport")
            let source = try folder.file("big.bin", bytes: 64 * 1024 * 1024)
            _ = try await transport.send(
                TransportRequest(
                    method: "POST", url: URL(string: "\(baseURL)/channels/messaging/slow/query?api_key=dev-key")!,
                    headers: authHeaders(serverDevToken),
                    body: .data(Data(#"{"data":{"created_by_id":"u1"}}"#.utf8), contentType: "application/json")))
            let started = Locked(false)
            let task = Task {
                try await transport.send(
                    TransportRequest(
                        method: "POST", url: URL(string: "\(baseURL)/channels/messaging/slow/file?api_key=dev-key")!,
                        headers: authHeaders(serverDevToken),
                        body: .multipart([MultipartPart(name: "file", filename: "big.bin", content: .file(source))]),
                        progress: { progress in if progress.uploaded > 0 { started.withLock { $0 = true } } }))
            }
            while !started.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
            let clock = ContinuousClock()
            let cancelledAt = clock.now
            task.cancel()
            await #expect(throws: CancellationError.self) { _ = try await task.value }
            #expect(clock.now - cancelledAt < .seconds(2))
        }
    }

    @Test("a TLS server whose certificate does not verify is refused; trusting its CA file works")
    func tlsVerification() async throws {
        let server = try TLSTestServer()
        defer { server.stop() }
        let strict = CurlHTTPTransport()
        defer { strict.shutdown() }
        await #expect {
            _ = try await strict.send(TransportRequest(method: "GET", url: server.url))
        } throws: { error in
            guard let error = error as? TransportError else { return false }
            return error.code == .tlsFailure && error.message.contains("does not verify")
        }
        let trusting = CurlHTTPTransport(caFile: server.certificate.path)
        defer { trusting.shutdown() }
        let response = try await trusting.send(TransportRequest(method: "GET", url: server.url))
        #expect(response.status == 200 && String(decoding: response.body, as: UTF8.self) == "hello over tls")
    }
}

/// A throwaway HTTPS server (Python's ssl module) with a self-signed certificate for
/// `localhost`, made with openssl for this test run.
final class TLSTestServer: Sendable {
    let folder: ScratchFolder
    let certificate: URL
    let url: URL
    private let process: Process

    init() throws {
        folder = try ScratchFolder("transport")
        certificate = folder.path("cert.pem")
        let key = folder.path("key.pem")
        let status = try run(
            "/usr/bin/openssl",
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.path, "-out", certificate.path, "-days", "1",
             "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"])
        try #require(status == 0, "openssl could not make a test certificate")
        let script = """
            import http.server, ssl, sys
            class Handler(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    body = b"hello over tls"
                    self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
                def log_message(self, *args): pass
            server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); context.load_cert_chain(sys.argv[1], sys.argv[2])
            server.socket = context.wrap_socket(server.socket, server_side=True)
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, certificate.path, key.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let port = Int(line) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw TransportError(code: .other, message: "the TLS test server did not start: \(line)")
        }
        url = URL(string: "https://localhost:\(port)/")!
    }

    /// SIGKILL: the test process may have SIGTERM ignored (signal handlers installed for
    /// graceful shutdown), and ignored dispositions are inherited by children.
    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
