import ChatDevServer
import ChatTestSupport
import ChatTransport
import Foundation
import Testing

/// A dev server on a free loopback port with its own data folder, removed afterwards.
func withDevServer<T: Sendable>(
    linkLifetime: Duration = .seconds(3600), healthCheckInterval: Duration = .seconds(10),
    _ body: @Sendable (DevServer, URL) async throws -> T
) async throws -> T {
    let scratch = try ScratchFolder("transport")
    let configuration = DevServerConfiguration(
        dataDirectory: scratch.path("data"), acceptsDevTokens: true, linkLifetime: linkLifetime, healthCheckInterval: healthCheckInterval)
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
