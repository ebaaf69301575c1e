import ChatModels
import Foundation
import HTTPTypes
import Hummingbird

/// Which platform a request counts against: the service keeps separate rate-limit quotas for
/// server-side calls and for each kind of client app.
enum RequestPlatform: String, CaseIterable, Sendable {
    case serverSide = "server_side"
    case android
    case ios
    case web

    /// A server token (`"server": true`) is server side; a user's call counts by the SDK named in
    /// `X-Stream-Client` (Android, iOS), web otherwise. The token is only read here, not checked:
    /// the route checks it, and a forged one is refused there.
    init(_ request: Request) {
        if let token = request.headers[.authorization], RequestPlatform.isServerToken(token) {
            self = .serverSide
            return
        }
        let client = (request.headers[HTTPField.Name("X-Stream-Client")!] ?? request.headers[.userAgent] ?? "").lowercased()
        if client.contains("android") {
            self = .android
        } else if client.contains("ios") || client.contains("swift") {
            self = .ios
        } else {
            self = .web
        }
    }

    /// Whether a JWT's payload claims `"server": true`.
    static func isServerToken(_ token: String) -> Bool {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return false }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let payload = Data(base64Encoded: base64), case .object(let claims)? = try? JSONParser().parse(payload) else { return false }
        return claims["server"] == .bool(true)
    }
}
