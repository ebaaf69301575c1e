import ChatDevServer
import ChatTransport
import Foundation
import Testing

/// A dev server on a free loopback port with its own data folder, removed afterwards.
func withDevServer<T: Sendable>(
    linkLifetime: Duration = .seconds(3600), healthCheckInterval: Duration = .seconds(10),
    _ body: @Sendable (DevServer, URL) async throws -> T
) async throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("transport-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let configuration = DevServerConfiguration(
        dataDirectory: folder, acceptsDevTokens: true, linkLifetime: linkLifetime, healthCheckInterval: healthCheckInterval)
    return try await DevServer.withRunning(configuration) { server in
        try await body(server, try await server.baseURL())
    }
}

/// A development token for `userId` (the dev server accepts them when started with `--dev`).
func devToken(_ userId: String) -> String {
    func base64url(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
    return base64url(#"{"alg":"HS256","typ":"JWT"}"#) + "." + base64url(#"{"user_id":"\#(userId)"}"#) + ".devtoken"
}

/// A server-side development token (no user id).
let serverDevToken: String = {
    func base64url(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
    return base64url(#"{"alg":"HS256","typ":"JWT"}"#) + "." + base64url(#"{"server":true}"#) + ".devtoken"
}()

func authHeaders(_ token: String) -> [(name: String, value: String)] {
    [("Authorization", token), ("stream-auth-type", "jwt")]
}

/// A temporary folder removed when the test ends.
final class TemporaryFolder: Sendable {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("chatbotkit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    func file(_ name: String, bytes: Int, seed: UInt8 = 7) throws -> URL {
        let file = url.appendingPathComponent(name)
        var bytesToWrite = [UInt8](repeating: 0, count: bytes)
        for index in 0..<bytes { bytesToWrite[index] = UInt8(truncatingIfNeeded: index &* 31 &+ Int(seed)) }
        try Data(bytesToWrite).write(to: file)
        return file
    }
}

/// Runs a process and waits for it; fails the test when it cannot be started.
@discardableResult
func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}
