import Crypto
import Foundation

/// Signs and checks file links the way a CDN does: `Expires` (Unix seconds), `Signature`
/// (HMAC-SHA256 over the path and `Expires`, URL-safe base64) and `Key-Pair-Id`.
///
/// Any response that returns a message signs its links afresh, which is how `getMessage`
/// refreshes an expired link.
struct LinkSigner: Sendable {
    static let keyPairId = "chatbotkit-dev"
    private let key: SymmetricKey
    let lifetime: Duration

    init(secret: String, lifetime: Duration) {
        // A key of its own, so a signature never doubles as a token signature.
        key = SymmetricKey(data: SHA256.hash(data: Data("file-links:\(secret)".utf8)))
        self.lifetime = lifetime
    }

    /// The signed link to `path` (which starts with `/files/`) on `baseURL`.
    func sign(path: String, baseURL: String, now: Date = Date()) -> String {
        let expires = Int64(now.timeIntervalSince1970 + lifetime.seconds)
        return "\(baseURL)\(path)?Expires=\(expires)&Signature=\(signature(path: path, expires: expires))&Key-Pair-Id=\(LinkSigner.keyPairId)"
    }

    /// Why a presented link is not valid, or `nil` when it is.
    func problem(path: String, expires: String?, signature: String?, now: Date = Date()) -> String? {
        guard let expires, let signature, let expiresAt = Int64(expires) else {
            return "the link is not signed: it needs Expires, Signature and Key-Pair-Id; get a fresh link with getMessage"
        }
        let expected = self.signature(path: path, expires: expiresAt)
        guard expected.utf8.count == signature.utf8.count,
            zip(expected.utf8, signature.utf8).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0
        else {
            return "the link's signature does not match; it was altered or signed by another server"
        }
        guard Double(expiresAt) > now.timeIntervalSince1970 else {
            return "the link expired at \(Date(timeIntervalSince1970: Double(expiresAt))); get a fresh link with getMessage"
        }
        return nil
    }

    private func signature(path: String, expires: Int64) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(path)\n\(expires)".utf8), using: key)
        return Data(mac).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
